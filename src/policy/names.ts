import { createRequire } from 'node:module';
import type Compromise from 'compromise';
import type { Revision } from '../domain/index.js';

// The CommonJS entry of compromise: one bundled file, as src/trace/redact.ts loads it.
const nlp = createRequire(import.meta.url)('compromise') as typeof Compromise;

/** Runs of capitalized words, with a title before them or of two words or more: the only text that may name a person. */
const CAPITALIZED_RUN = /(?:\b(?:Dr|Doctor|Mr|Mrs|Ms|Mx|Nurse|Prof)\.? )?\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)*/gu;
const HONORIFIC = /^(?:dr|doctor|mr|mrs|ms|mx|nurse|prof)\.?\s+/iu;

/**
 * People the policies name (providers, staff contacts): compromise's person tagger over the
 * titles, headings and sentences of the revisions that may name one. A question about "Dr. Anita
 * Okafor" is about the deployment, not an identifier of the patient: the redactor keeps these as
 * it keeps assistant.yaml's names. Each name is kept whole, with its honorific, and as "Dr. <last
 * name>" when the policies use a title ("Dr. Okafor"). Sorted, distinct.
 */
export function policyNames(revisions: Iterable<Pick<Revision, 'title' | 'body'>>): string[] {
  // The tagger reads each distinct run alone: a corpus repeats its runs ("Harbor Clinic"), and a pass costs milliseconds.
  const runs = new Set<string>();
  for (const rev of revisions) for (const run of `${rev.title}\n${rev.body}`.match(CAPITALIZED_RUN) ?? []) if (run.includes(' ')) runs.add(run);
  const names = new Set<string>();
  for (const run of runs) {
    for (const person of nlp(`${run}.`).people().out('array') as string[]) {
      const name = person.replace(/[\s,.;:!?]+$/u, '').trim();
      const bare = name.replace(HONORIFIC, '');
      if (!/\p{Lu}/u.test(bare) || bare.length < 3) continue;
      names.add(name);
      names.add(bare);
      const honorific = HONORIFIC.exec(name)?.[0];
      const last = bare.split(/\s+/u).at(-1) ?? '';
      if (honorific !== undefined && last.length > 2) names.add(`${honorific}${last}`.replace(/\s+/gu, ' '));
    }
  }
  return [...names].sort();
}

/**
 * Two or more capitalized words after a lower-case word on the same line (a name in running text,
 * not a sentence's or a heading's first words), or one word with a capital inside ("TideLink").
 */
const NAME_IN_TEXT = /(?<=(?<![\p{L}'’-])\p{Ll}[\p{L}'’-]*[,;:]? )\p{Lu}[\p{L}'’-]+(?: \p{Lu}[\p{L}'’-]+)+|(?<![\p{L}'’-])\p{Lu}\p{Ll}+\p{Lu}\p{L}*/gu;

/**
 * What the policies call their own services, places, programmes and portals ("call the Ruta Verde
 * line", "go to Kessling Valley Regional", "in LanternLink"): names a patient asks about, which the
 * redactor must not read as the patient's. A regular expression over the text, cheap enough to run
 * over every revision at each ingest. Sorted, distinct.
 */
export function properNames(revisions: Iterable<Pick<Revision, 'body'>>): string[] {
  const names = new Set<string>();
  for (const rev of revisions) for (const name of rev.body.match(NAME_IN_TEXT) ?? []) names.add(name);
  return [...names].sort();
}
