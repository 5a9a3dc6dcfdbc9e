import type { Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const { segment } of segmenter.segment(text.replace(/\s+/gu, ' ').trim())) {
    const s = segment.trim();
    if (s.length > 0) out.push(s);
  }
  return out;
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
