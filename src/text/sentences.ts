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

function blockTexts(node: RootContent): string[] {
  switch (node.type) {
    case 'heading':
    case 'thematicBreak':
    case 'code':
    case 'html':
    case 'definition':
      return [];
    case 'list':
      return node.children.flatMap((item) => item.children.flatMap(blockTexts));
    case 'blockquote':
      return node.children.flatMap(blockTexts);
    default:
      return [toString(node)];
  }
}

/**
 * The sentences a passage states, as plain text: headings are context, not claims, so they are
 * left out; list items and paragraphs become sentences of their own.
 */
export function passageSentences(markdown: string): string[] {
  const tree = parser.parse(markdown) as Root;
  return tree.children.flatMap(blockTexts).flatMap(splitSentences);
}
