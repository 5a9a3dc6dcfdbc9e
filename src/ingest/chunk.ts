import type { Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { chunkIdOf, type Passage, type Revision } from '../domain/index.js';
import { sentenceSpans } from '../text/index.js';

export interface ChunkOptions {
  /** A passage keeps absorbing following blocks of its section while shorter than this. */
  readonly minChars: number;
  /** A passage never grows past this by absorbing blocks; a longer block is split at sentences, but a table never. */
  readonly maxChars: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { minChars: 160, maxChars: 900 };

// GFM, as units are drawn (src/cite/units.ts): a table is a table, not a paragraph to cut at its periods.
const parser = unified().use(remarkParse).use(remarkGfm);

interface Span {
  start: number;
  end: number;
  readonly headings: readonly string[];
  /** A table: kept whole whatever its length (cut mid-row, its rows lose their header cells and their row structure). */
  readonly table: boolean;
}

function offsets(node: RootContent): { start: number; end: number } {
  return { start: node.position?.start.offset ?? 0, end: node.position?.end.offset ?? 0 };
}

/** Split an oversized span at sentence boundaries into pieces of at most maxChars (a single longer sentence stays whole). */
function splitLong(body: string, span: Span, maxChars: number): Span[] {
  const pieces: Span[] = [];
  let current: Span | null = null;
  for (const sentence of sentenceSpans(body.slice(span.start, span.end))) {
    const start = span.start + sentence.start;
    const end = span.start + sentence.end;
    if (current !== null && end - current.start <= maxChars) {
      current.end = end;
    } else {
      if (current !== null) pieces.push(current);
      current = { start, end, headings: span.headings, table: false };
    }
  }
  if (current !== null) pieces.push(current);
  return pieces;
}

/**
 * Chunk a revision body into passages: one rule with its context. A section's first passage
 * starts at its heading; short blocks of one section are joined; every passage is an exact
 * span [start, end) of the body, so an auditor can find it again in the revision.
 */
export function chunkRevision(revision: Pick<Revision, 'revision' | 'sourceId' | 'body'>, options: ChunkOptions = DEFAULT_CHUNKING): Passage[] {
  const { body } = revision;
  const tree: Root = parser.parse(body);
  const spans: Span[] = [];
  const headingStack: { depth: number; text: string }[] = [];
  let headingStart: number | null = null;
  let current: Span | null = null;
  const flush = (): void => {
    if (current !== null) spans.push(...(current.end - current.start > options.maxChars && !current.table ? splitLong(body, current, options.maxChars) : [current]));
    current = null;
  };

  for (const node of tree.children) {
    const { start, end } = offsets(node);
    if (node.type === 'heading') {
      flush();
      while ((headingStack.at(-1)?.depth ?? 0) >= node.depth) headingStack.pop();
      headingStack.push({ depth: node.depth, text: toString(node).trim() });
      headingStart = start;
      continue;
    }
    if (node.type === 'thematicBreak' || node.type === 'definition' || node.type === 'yaml') continue;
    const open: Span | null = current;
    if (open !== null && open.end - open.start < options.minChars && end - open.start <= options.maxChars) {
      open.end = end;
      continue;
    }
    flush();
    current = { start: headingStart ?? start, end, headings: headingStack.map((h) => h.text), table: node.type === 'table' };
    headingStart = null;
  }
  flush();

  return spans
    .filter((s) => body.slice(s.start, s.end).trim() !== '')
    .map((s) => ({
      chunkId: chunkIdOf(revision.revision, s.start, s.end),
      revision: revision.revision,
      sourceId: revision.sourceId,
      start: s.start,
      end: s.end,
      text: body.slice(s.start, s.end),
      headings: s.headings,
    }));
}

/** The text a passage is embedded and keyword-indexed under: its page title and headings give it context. */
export function searchTextOf(title: string, passage: Pick<Passage, 'headings' | 'text'>): string {
  return [title, ...passage.headings, passage.text].join('\n');
}
