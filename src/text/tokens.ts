/**
 * Content-word analysis shared by the support check of generated sentences and the judge's unit preselection:
 * lower-case word tokens, stop words removed, a light suffix stemmer (enough to relate
 * "rescheduling" to "reschedule" and "draws" to "draw"; not a linguistic stemmer).
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been but by can could do does did for from had has have how i if in into is it its ' +
    'me my of on or our please should so than that the their them then there these they this to up us was we ' +
    'what when where which who will with would you your yours am any all also about after before get got ' +
    'just may might much must need not no out over same some such very want like know tell there here one ' +
    'each other only own too s t don shall ever whether hi hello hey thanks thank i\'m i\'ve i\'d i\'ll im ' +
    // generic verbs and fillers: they carry the asking, not the asked-about
    'see seen someone somebody anyone anybody anything nothing something still allowed allow many happen happens ' +
    'give take bring come coming go going getting along once few whole instead while really even maybe okay ok ' +
    'sure able let make his her him she he they their its can\'t cannot won\'t don\'t doesn\'t isn\'t whats wheres hows whos'
  ).split(' '),
);

const IRREGULAR: Readonly<Record<string, string>> = {
  drawn: 'draw',
  drew: 'draw',
  taken: 'take',
  took: 'take',
  given: 'give',
  gave: 'give',
  seen: 'see',
  saw: 'see',
  went: 'go',
  gone: 'go',
  children: 'child',
  kids: 'child',
  kid: 'child',
  paid: 'pay',
  brought: 'bring',
  lunchtime: 'lunch',
};

export function stem(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular !== undefined) return irregular;
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed', 'es', 's']) {
    if (w.length > suffix.length + 3 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Word tokens: letters and digits, keeping times like "4pm" and amounts like "40" as tokens. */
export function words(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
}

/** Stemmed content words, order kept, duplicates kept. */
export function contentTerms(text: string): string[] {
  return words(text)
    .map((w) => w.replace(/['’]s$/u, ''))
    .filter((w) => !STOP_WORDS.has(w) && (w.length > 1 || /\d/u.test(w)))
    .map(stem);
}

