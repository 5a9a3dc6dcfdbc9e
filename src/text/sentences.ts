import type { Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

export interface SentenceSpan {
  readonly start: number;
  readonly end: number;
}

const LETTER = /\p{L}/u;

/**
 * The sentences of `text` as spans [start, end) of it, without surrounding white space. A line
 * break is read as a space: ICU ends a sentence at every line break, which would cut each line of
 * a hard-wrapped Markdown paragraph into a "sentence" of its own. A segment without a letter (an
 * enumerator: ICU ends a sentence after "6." in "6. How do I cancel?") opens the sentence after it.
 */
export function sentenceSpans(text: string): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  let opened: number | null = null;
  for (const { segment, index } of segmenter.segment(text.replace(/[\r\n\u2028\u2029\u0085\v\f]/gu, ' '))) {
    const end = index + segment.trimEnd().length;
    const start: number = opened ?? index + (segment.length - segment.trimStart().length);
    if (end <= start) continue;
    opened = LETTER.test(segment) ? null : start;
    if (opened === null) out.push({ start, end });
  }
  // Text that ends without a letter after its last sentence ("… see section 4. 4.1") stays a sentence of its own.
  if (opened !== null) out.push({ start: opened, end: text.trimEnd().length });
  return out;
}

/** The sentences of `text`, each with its white space squashed to single spaces. */
export function splitSentences(text: string): string[] {
  return sentenceSpans(text).map(({ start, end }) => text.slice(start, end).replace(/\s+/gu, ' '));
}

const parser = unified().use(remarkParse);

/** Blocks that carry no statements a sentence could be drawn from. */
const NOT_CLAIMS: ReadonlySet<string> = new Set(['heading', 'thematicBreak', 'code', 'html', 'definition', 'yaml']);

function blockTexts(node: RootContent): string[] {
  if (node.type === 'list') return node.children.flatMap((item) => item.children.flatMap(blockTexts));
  if (node.type === 'blockquote') return node.children.flatMap(blockTexts);
  return NOT_CLAIMS.has(node.type) ? [] : [toString(node)];
}

/**
 * The sentences a passage states, as plain text: headings are context, not claims, so they are
 * left out; list items and paragraphs become sentences of their own.
 */
export function passageSentences(markdown: string): string[] {
  const tree: Root = parser.parse(markdown);
  return tree.children.flatMap(blockTexts).flatMap(splitSentences);
}

/**
 * Where a sentence of a chat message ends: after "?", or after a full stop or "!" that follows a
 * number, a bracket or a word of five letters or more, so "dec. 26" and "dr. lee" stay whole. (The
 * ICU segmenter does not end a sentence before a lower-case word, and questions arrive
 * lower-cased, while it does end one inside "dec. 26".)
 */
const MESSAGE_SENTENCE_END = /(?<=\?|(?:\p{L}{5,}|\d|\))[.!])\s+/u;

/** The sentences of a message that ask something (end in "?"), joined; the whole message when none does. */
export function askingSentences(message: string): string {
  const sentences = message.split(MESSAGE_SENTENCE_END);
  const asking = sentences.filter((s) => s.trimEnd().endsWith('?'));
  return (asking.length > 0 ? asking : sentences).join(' ');
}
