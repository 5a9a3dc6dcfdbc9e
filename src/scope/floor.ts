import { stemmer } from 'stemmer';
import type { z } from 'zod';
import { boundedMemo, type UrgentClassSchema } from '../domain/index.js';

/**
 * The safety floor: a short, audited list of phrases that mean an emergency or a mental-health
 * crisis in any context. It runs before and beside the learned classifier and can only add a
 * routing, never remove one. Phrases are matched on Porter stems (Porter, "An algorithm for suffix
 * stripping", 1980), so every inflection counts: "end my life", "ending my life", "ended my life".
 * A slot written `{a|b}` takes any of its words. Keep this list short: breadth is the model's job.
 * An emergency phrase belongs here only when no appointment question could contain it harmlessly
 * ("heart attack", "chest pain" and "overdose" do not: "book my follow-up after a heart attack");
 * crisis phrases stay even so, since 988 is the right help for a question about suicide either way.
 */
export type UrgentClass = z.infer<typeof UrgentClassSchema>;

export interface FloorPhrase {
  readonly phrase: string;
  readonly routesTo: UrgentClass;
}

const SELF = '{myself|himself|herself|themselves|themself|yourself|ourselves}';
const WHOSE = '{my|his|her|their|your|our}';

export const DEFAULT_FLOOR: readonly FloorPhrase[] = [
  { phrase: 'suicide', routesTo: 'crisis' },
  { phrase: `kill ${SELF}`, routesTo: 'crisis' },
  { phrase: `end ${WHOSE} life`, routesTo: 'crisis' },
  { phrase: `{take|took|taken} ${WHOSE} own life`, routesTo: 'crisis' },
  { phrase: 'end it all', routesTo: 'crisis' },
  { phrase: 'want to {die|dies|died|dying}', routesTo: 'crisis' },
  { phrase: 'better off dead', routesTo: 'crisis' },
  { phrase: 'better off without me', routesTo: 'crisis' },
  { phrase: `{hurt|harm|cut|burn|burnt} ${SELF}`, routesTo: 'crisis' },
  { phrase: 'self harm', routesTo: 'crisis' },
  { phrase: 'kms', routesTo: 'crisis' },
  { phrase: 'unalive', routesTo: 'crisis' },
  { phrase: '{sewerslide|sewer slide}', routesTo: 'crisis' },
  { phrase: '{not|isnt|arent|wasnt|stop|cant} breathe', routesTo: 'emergency' },
  { phrase: '{unconscious|unresponsive}', routesTo: 'emergency' },
  { phrase: '{wont|cant|not} {wake|woke|woken} up', routesTo: 'emergency' },
  { phrase: '{cough|vomit|throw|threw|thrown} up blood', routesTo: 'emergency' },
  { phrase: 'anaphylaxis', routesTo: 'emergency' },
  { phrase: 'anaphylactic', routesTo: 'emergency' },
];

/** Stems by word: messages are made of a few thousand everyday words, stemmed once each. */
const stemOf = boundedMemo<string>(50_000);

/** Words as the floor reads them: lower case, apostrophes dropped ("can't" -> "cant"), "my self" joined. */
function floorTokens(text: string): string[] {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['\u2018\u2019`]/gu, '')
    .replace(/\b(my|your|him|her|them|our) selfs?\b/gu, '$1self')
    .replace(/\bcannot\b/gu, 'cant')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0);
  return words.map((w) => stemOf(w, () => stemmer(w)));
}

/**
 * Every token sequence a phrase stands for: each `{a|b}` slot expands to its alternatives, and an
 * alternative of several words ("sewer slide") stays a sequence, never single words that would each
 * match alone.
 */
function compile(phrase: string): readonly (readonly string[])[] {
  const slots = (phrase.match(/\{[^}]+\}|[^\s{}]+/gu) ?? []).map((part) =>
    (part.startsWith('{') ? part.slice(1, -1).split('|') : [part]).map((alternative) => floorTokens(alternative)).filter((t) => t.length > 0),
  );
  return slots.reduce<string[][]>((sequences, alternatives) => sequences.flatMap((head) => alternatives.map((tail) => [...head, ...tail])), [[]]).filter((s) => s.length > 0);
}

export interface FloorHit {
  readonly phrase: string;
  readonly routesTo: UrgentClass;
}

export interface SafetyFloor {
  readonly phrases: readonly FloorPhrase[];
  /** The first phrase found anywhere in the text, or null. */
  match(text: string): FloorHit | null;
}

export function createSafetyFloor(extra: readonly FloorPhrase[] = []): SafetyFloor {
  const phrases = [...DEFAULT_FLOOR, ...extra];
  const compiled = phrases.flatMap((p) => compile(p.phrase).map((sequence) => ({ ...p, sequence })));
  // The sequences by their first token, so one pass over the text finds every candidate position.
  const startingWith = new Map<string, number[]>();
  compiled.forEach(({ sequence }, k) => {
    const first = sequence[0] ?? '';
    startingWith.set(first, [...(startingWith.get(first) ?? []), k]);
  });
  return {
    phrases,
    match(text) {
      const tokens = floorTokens(text);
      // The first phrase in the list's order that occurs anywhere, as if each were searched in turn.
      let first = compiled.length;
      tokens.forEach((token, i) => {
        for (const k of startingWith.get(token) ?? []) {
          if (k < first && compiled[k]?.sequence.every((t, j) => tokens[i + j] === t) === true) first = k;
        }
      });
      const hit = compiled[first];
      return hit === undefined ? null : { phrase: hit.phrase, routesTo: hit.routesTo };
    },
  };
}
