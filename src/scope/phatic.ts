/**
 * A message that asks nothing: every word of it belongs to a greeting, a thanks or an acknowledgement
 * ("hi", "hello there", "thank you so much!", "ok thanks", "good morning"). A fixed grammar, closed
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
] as const;

/** Words that may stand beside a formula ("hi there", "thanks so much", "thanks again, everyone") but never alone. */
const FILLERS = ['there', 'all', 'everyone', 'folks', 'guys', 'team', 'so much', 'very much', 'a lot', 'again'] as const;

const words = (formula: string): readonly string[] => formula.split(' ');
const byLength = (formulas: readonly string[]): readonly (readonly string[])[] => formulas.map(words).sort((a, b) => b.length - a.length);
const HEAD_WORDS = byLength(HEADS);
const FILLER_WORDS = byLength(FILLERS);

const startsWith = (tokens: readonly string[], at: number, formula: readonly string[]): boolean => formula.every((w, i) => tokens[at + i] === w);

/**
 * Whether the message asks nothing: its words (lower case; punctuation, emoji and symbols are not
 * words) are one or more of the grammar's formulas, at least one of them a greeting, thanks or
 * acknowledgement.
 */
export function asksNothing(text: string): boolean {
  const tokens = text.toLowerCase().split(/[^\p{L}\p{N}']+/u).map((t) => t.replace(/^'+|'+$/gu, '')).filter((t) => t !== '');
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
