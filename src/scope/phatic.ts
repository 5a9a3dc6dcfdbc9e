/**
 * A message that asks nothing: every word of it belongs to a greeting, a thanks or an acknowledgement
 * ("hi", "hello there", "thank you so much!", "ok thanks", "good morning", "👍"). A fixed grammar, closed
 * by design (docs/scope-routing.md, session 30): farewells ("bye", "goodbye", "take care"),
 * apologies, "no", distress interjections ("ugh", "help" alone) and every other word are absent on
 * purpose, so a message holding one is the classifiers' to route; a farewell that asks nothing is
 * what a goodbye act looks like.
 */

/** Formulas that make a message phatic on their own. */
const HEADS = [
  // greetings
  'hi', 'hii', 'hello', 'hey', 'heya', 'hiya', 'howdy', 'greetings', 'good morning', 'good afternoon', 'good evening', 'morning',
  // thanks
  'thanks', 'thank you', 'thankyou', 'thanx', 'thx', 'ty', 'tysm', 'cheers', 'much appreciated', 'appreciate it', 'appreciated',
  // acknowledgements
  'ok', 'okay', 'okey', 'k', 'kk', 'alright', 'all right', 'got it', 'gotcha', 'sounds good', 'great', 'cool', 'perfect', 'awesome',
  'nice', 'yes', 'yeah', 'yep', 'yup', 'sure', 'understood', 'makes sense', 'that makes sense',
  'that helps', 'that helped', 'this helps', 'this helped', 'that was helpful', 'very helpful', 'helpful',
  // emoji that say "ok" or "thanks" (session 40): every other emoji is a word outside the grammar
  '👍', '👌', '🙂', '😊', '🙏', '✅',
] as const;

/** Words that may stand beside a formula ("hi there", "thanks so much", "thanks again, everyone") but never alone. */
const FILLERS = ['there', 'all', 'everyone', 'folks', 'guys', 'team', 'so much', 'very much', 'a lot', 'again'] as const;

const words = (formula: string): readonly string[] => formula.split(' ');
const byLength = (formulas: readonly string[]): readonly (readonly string[])[] => formulas.map(words).sort((a, b) => b.length - a.length);
const HEAD_WORDS = byLength(HEADS);
const FILLER_WORDS = byLength(FILLERS);

const startsWith = (tokens: readonly string[], at: number, formula: readonly string[]): boolean => formula.every((w, i) => tokens[at + i] === w);

/** Skin tones, variation selectors and the zero-width joiner: they bind to the emoji beside them and are no word of their own. */
const EMOJI_PARTS = /[\p{Emoji_Modifier}\u{FE0E}\u{FE0F}\u{200D}]/gu;
/** A word: a run of letters, digits and apostrophes, or one emoji. */
const WORD = /\p{Extended_Pictographic}|[\p{L}\p{N}']+/gu;

/**
 * Whether the message asks nothing: its words (lower case; an emoji is a word, punctuation and other
 * symbols are not) are one or more of the grammar's formulas, at least one of them a greeting, thanks
 * or acknowledgement.
 */
export function asksNothing(text: string): boolean {
  const tokens = (text.toLowerCase().replace(EMOJI_PARTS, '').match(WORD) ?? []).map((t) => t.replace(/^'+|'+$/gu, '')).filter((t) => t !== '');
  let heads = 0;
  for (let at = 0; at < tokens.length; ) {
    const head = HEAD_WORDS.find((f) => startsWith(tokens, at, f));
    const formula = head ?? FILLER_WORDS.find((f) => startsWith(tokens, at, f));
    if (formula === undefined) return false;
    if (head !== undefined) heads += 1;
    at += formula.length;
  }
  return heads > 0;
}
