import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { boundedMemo, CitetraceError } from '../domain/index.js';
import { readPinnedFile } from '../model/index.js';
import { namesPattern } from '../text/index.js';

/** What the language identifier read in a message. */
export interface LanguageReading {
  /** ISO 639-1 code of the language that decided, or null when the message is too short to read. */
  readonly language: string | null;
  /** Whether the assistant can read the message: nothing in it is confidently another language. */
  readonly english: boolean;
  /**
   * Whether the identifier is sure which language `language` is (eld's reliability test): only then
   * is the patient addressed in it. Haitian Creole, which eld does not know, reads as Tagalog or
   * Romanian, mostly unreliably.
   */
  readonly reliable: boolean;
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
 * eld 2.1.0 (Efficient Language Detector, Apache-2.0) with its "small" n-gram database: 60 languages,
 * a few MB of heap. The database is the package's own, packed by
 * training/language/export-eld.ts (the package's JavaScript form takes 0.4 s to import; the
 * packed form a few milliseconds to read) and pinned here; a different file stops start-up.
 */
export const LANGUAGE_MODEL = {
  id: 'eld 2.1.0 small',
  database: fileURLToPath(new URL('../../models/language/eld-small.json', import.meta.url)),
  sha256: '45cb2a5950b3c5f4bc3875a4726da3b9cae1da488b9ca0e85e88363b774f42a0',
} as const;
const MIN_LETTERS = { whole: 20, clause: 20 } as const;
const CLAUSE_MARGIN = 0.1;

/** Where one clause ends and the next begins: sentence and clause punctuation, a dash between spaces, a line break. */
const CLAUSE_BREAK = /[.!?;:,¿¡。！？；，、]+|\s[-–—]\s|\n/u;
const LETTER = /\p{L}/gu;
const LATIN_LETTER = /\p{Script=Latin}/gu;
/** Typed placeholders left by redaction: not words of any language. */
const PLACEHOLDER = /\[[a-z_]+\]/giu;

const lettersIn = (text: string): number => text.match(LETTER)?.length ?? 0;

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
  const namePattern = namesPattern(names);
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
      const reading = detector.detect(masked);
      const whole = reading.language;
      if (letters > 0 && latin * 2 < letters) return { language: foreign(whole) ? whole : null, english: false, reliable: foreign(whole) && reading.isReliable(), clause: null };
      if (letters < MIN_LETTERS.whole) return { language: null, english: true, reliable: false, clause: null };
      if (foreign(whole)) return { language: whole, english: false, reliable: reading.isReliable(), clause: null };
      for (const clause of masked.split(CLAUSE_BREAK)) {
        if (lettersIn(clause) < MIN_LETTERS.clause) continue;
        // A message of one clause was read already.
        const part = clause === masked ? reading : detector.detect(clause);
        if (!foreign(part.language) || !part.isReliable()) continue;
        const scores = part.getScores();
        if ((scores[part.language] ?? 0) - (scores.en ?? 0) >= CLAUSE_MARGIN) return { language: part.language, english: false, reliable: true, clause: clause.trim() };
      }
      return { language: whole === '' ? null : whole, english: true, reliable: reading.isReliable(), clause: null };
    },
  };
}

/** eld's detector, fed a database it did not import itself (its internal hook; the package version is pinned). */
interface EldModule {
  readonly createEld: () => { readonly instance: LanguageModel['detector']; readonly loadData: (data: unknown) => boolean };
}

/** The shipped database file (training/language/export-eld.ts): eld's own numbers, packed. */
const CompactEldSchema = z.object({
  format: z.literal('eld-compact-1'),
  type: z.string(),
  languages: z.record(z.string(), z.string()),
  isSubset: z.boolean(),
  /** The n-grams, sorted (by UTF-16 code unit) and joined. */
  grams: z.string(),
  /** base64 bytes: each n-gram's length; how many (language, score) pairs it has; the pairs. */
  lengths: z.string(),
  counts: z.string(),
  pairs: z.string(),
});

/**
 * eld's n-gram table over the packed form: `table[gram]` is that n-gram's scores by language index,
 * built when eld reads it (a few hundred per message), found by binary search over the sorted n-grams.
 * Nothing is unpacked at load: the plain-object table took 65 ms to parse and some 30 MB of heap.
 */
function ngramTable(data: z.output<typeof CompactEldSchema>, file: string): Readonly<Record<string, Readonly<Record<number, number>>>> {
  const [lengths, counts, pairs] = [data.lengths, data.counts, data.pairs].map((b64) => Buffer.from(b64, 'base64')) as [Buffer, Buffer, Buffer];
  const n = lengths.length;
  const start = new Uint32Array(n + 1);
  const first = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    start[i + 1] = (start[i] ?? 0) + (lengths[i] ?? 0);
    first[i + 1] = (first[i] ?? 0) + (counts[i] ?? 0);
  }
  if (counts.length !== n || start[n] !== data.grams.length || (first[n] ?? 0) * 2 !== pairs.length) throw new CitetraceError('MODEL_MISMATCH', `${file}: its n-gram lengths and counts do not add up`);
  const gramAt = (i: number): string => data.grams.slice(start[i], start[i + 1]);
  const find = (gram: string): number => {
    let [lo, hi] = [0, n - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = gramAt(mid);
      if (at === gram) return mid;
      if (at < gram) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const unpack = (i: number): Readonly<Record<number, number>> | null => {
    if (i < 0) return null;
    const scores: Record<number, number> = {};
    for (let j = first[i] ?? 0; j < (first[i + 1] ?? 0); j++) scores[pairs[2 * j] ?? 0] = pairs[2 * j + 1] ?? 0;
    return scores;
  };
  // The n-grams of ordinary text recur from message to message: the most recently read ones stay unpacked.
  const unpacked = boundedMemo<Readonly<Record<number, number>> | null>(50_000);
  return new Proxy(
    {},
    {
      get(_table, gram) {
        return typeof gram === 'string' ? (unpacked(gram, () => unpack(find(gram))) ?? undefined) : undefined;
      },
    },
  );
}

/** The shipped model: eld's detector over the pinned, packed form of its small database. */
export async function loadLanguageModel(pinned: { readonly database: string; readonly sha256: string } = LANGUAGE_MODEL): Promise<LanguageModel> {
  const parsed = CompactEldSchema.safeParse(JSON.parse(readPinnedFile('language identifier database', pinned.database, pinned.sha256).toString('utf8')));
  if (!parsed.success) throw new CitetraceError('MODEL_MISMATCH', `${pinned.database}: not an eld n-gram database`);
  const { type, languages, isSubset } = parsed.data;
  const { createEld } = (await import(new URL('../languageDetector.js', import.meta.resolve('eld/small')).href)) as EldModule;
  const { instance, loadData } = createEld();
  if (!loadData({ type, languages, isSubset, ngrams: ngramTable(parsed.data, pinned.database) })) throw new CitetraceError('MODEL_MISMATCH', `${pinned.database}: not an eld n-gram database`);
  return { modelId: LANGUAGE_MODEL.id, sha256: pinned.sha256, detector: instance };
}
