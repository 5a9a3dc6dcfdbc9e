import { fileURLToPath } from 'node:url';
import { readPinnedFile } from '../model/index.js';

/** What the language identifier read in a message. */
export interface LanguageReading {
  /** ISO 639-1 code of the language that decided, or null when the message is too short to read. */
  readonly language: string | null;
  /** Whether the assistant can read the message: nothing in it is confidently another language. */
  readonly english: boolean;
  /** The clause read as another language when the message as a whole was read as English, else null. */
  readonly clause: string | null;
}

/** Reads which language a message is written in. Identity fields and limits go into every trace. */
export interface LanguageIdentifier {
  readonly modelId: string;
  /** sha256 of the n-gram database file the identifier reads. */
  readonly sha256: string;
  /** Fewest letters the whole message, or one clause of it, needs before its reading counts. */
  readonly minLetters: { readonly whole: number; readonly clause: number };
  /** How far a clause's language must out-score English (eld's scale) in a message that reads as English. */
  readonly clauseMargin: number;
  identify(text: string): LanguageReading;
}

/**
 * eld 2.1.0 (Efficient Language Detector, Apache-2.0), its "small" n-gram database: 60 languages,
 * about 50 MB of heap. The database file is pinned; a different file stops start-up.
 */
const ELD = { id: 'eld 2.1.0 small', database: '../ngrams/small.js', sha256: '81df62f6b072f475b5b09e2cfa4a8ba4ab71eb99c713eb4b4ace461463180ab6' } as const;
const MIN_LETTERS = { whole: 20, clause: 20 } as const;
const CLAUSE_MARGIN = 0.1;

/** Where one clause ends and the next begins: sentence and clause punctuation, a dash between spaces, a line break. */
const CLAUSE_BREAK = /[.!?;:,¿¡。！？；，、]+|\s[-–—]\s|\n/u;
const LETTER = /\p{L}/gu;
const LATIN_LETTER = /\p{Script=Latin}/gu;
/** Typed placeholders left by redaction: not words of any language. */
const PLACEHOLDER = /\[[a-z_]+\]/giu;

const lettersIn = (text: string): number => text.match(LETTER)?.length ?? 0;
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/** A loaded language model: what reads text, and its identity for the trace. */
export interface LanguageModel {
  readonly modelId: string;
  readonly sha256: string;
  readonly detector: { detect(text: string): { readonly language: string; isReliable(): boolean; getScores(): Record<string, number> } };
}

/**
 * Build an identifier over a detector. `names` are the deployment's own names (organization,
 * sites, services, providers): masked before reading, since "aldercrest lab hrs?" reads as Basque.
 * The whole message is read first; when it reads as English, each clause of `minLetters.clause`
 * letters or more is read too, and one that is reliably another language, out-scoring English by
 * `clauseMargin`, makes the message unreadable (a crisis clause in Spanish beside an English
 * booking question; not "do yall do yellow fever shots", which reads as Portuguese by a hair). A message whose
 * letters are mostly outside the Latin script is another language however short.
 */
export function createLanguageIdentifier(model: LanguageModel, names: readonly string[]): LanguageIdentifier {
  const { detector } = model;
  const nameList = [...new Set(names.map((n) => n.trim()).filter((n) => n.length > 0))].sort((a, b) => b.length - a.length);
  const namePattern = nameList.length === 0 ? null : new RegExp(`(?<![\\p{L}\\p{N}])(?:${nameList.map(escape).join('|')})(?![\\p{L}\\p{N}])`, 'giu');
  const mask = (text: string): string => (namePattern === null ? text : text.replace(namePattern, ' ')).replace(PLACEHOLDER, ' ');
  const foreign = (language: string): boolean => language !== '' && language !== 'en';
  return {
    modelId: model.modelId,
    sha256: model.sha256,
    minLetters: MIN_LETTERS,
    clauseMargin: CLAUSE_MARGIN,
    identify(text) {
      const masked = mask(text);
      const letters = lettersIn(masked);
      const latin = masked.match(LATIN_LETTER)?.length ?? 0;
      const whole = detector.detect(masked).language;
      if (letters > 0 && latin * 2 < letters) return { language: foreign(whole) ? whole : null, english: false, clause: null };
      if (letters < MIN_LETTERS.whole) return { language: null, english: true, clause: null };
      if (foreign(whole)) return { language: whole, english: false, clause: null };
      for (const clause of masked.split(CLAUSE_BREAK)) {
        if (lettersIn(clause) < MIN_LETTERS.clause) continue;
        const reading = detector.detect(clause);
        if (!foreign(reading.language) || !reading.isReliable()) continue;
        const scores = reading.getScores();
        if ((scores[reading.language] ?? 0) - (scores.en ?? 0) >= CLAUSE_MARGIN) return { language: reading.language, english: false, clause: clause.trim() };
      }
      return { language: whole === '' ? null : whole, english: true, clause: null };
    },
  };
}

/** The shipped model: eld's small database, checked against its pinned sha256 before it is imported. */
export async function loadLanguageModel(): Promise<LanguageModel> {
  readPinnedFile('language identifier database', fileURLToPath(new URL(ELD.database, import.meta.resolve('eld/small'))), ELD.sha256);
  const { eld } = await import('eld/small');
  return { modelId: ELD.id, sha256: ELD.sha256, detector: eld };
}
