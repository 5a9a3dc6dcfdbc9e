import type { List, ListItem, Node, Paragraph, Root, RootContent, Table } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import type { Passage } from '../domain/index.js';
import { sentenceSpans } from '../text/index.js';
import { flaggedTexts, overlaps, type FlaggedSpan } from './flagged.js';

/**
 * What one statement of a policy page is, read from its Markdown tree: a sentence of a paragraph,
 * a list item with its lead-in, a table row with its header cells, an FAQ question with its answer.
 */
export type UnitKind = 'sentence' | 'item' | 'row' | 'faq';

/** The smallest text that can answer a question on its own: what the judge reads and an extract quotes. */
export interface Unit {
  readonly kind: UnitKind;
  /** Plain text: the sentence; "lead-in: item"; "Header: cell; Header: cell"; "Question? Answer". */
  readonly text: string;
  /** The unit's own span [start, end) in the revision body (the row, the item, the sentence, the FAQ answer). */
  readonly start: number;
  readonly end: number;
  /** A table row's cells under their header cells, in column order; absent for other kinds. */
  readonly cells?: readonly RowCell[];
}

/** One cell of a table row, read under its column's header. */
export interface RowCell {
  readonly header: string;
  readonly value: string;
}

/** GitHub-flavoured Markdown: tables are rows with header cells, not paragraphs of pipes. */
const parser = unified().use(remarkParse).use(remarkGfm);

const plain = (markdown: string): string => toString(parser.parse(markdown)).replace(/\s+/gu, ' ').trim();
const squash = (text: string): string => text.replace(/\s+/gu, ' ').trim();

interface Span {
  readonly start: number;
  readonly end: number;
}

/** Whether a span holds text flagged as addressed to a machine reader; nothing is blocked when the units are first drawn. */
type Blocked = (span: Span) => boolean;
const NOTHING: Blocked = () => false;

const spanOf = (node: Node): Span => ({
  start: node.position?.start.offset ?? 0,
  end: node.position?.end.offset ?? 0,
});

/** Emphasis marks a sentence boundary cut from their pair ("**Bold statement." | "Then more.**"): markup, not text. */
const STRAY_EMPHASIS = /^[*_]{1,3}\s*|\s*[*_]{1,3}$/gu;

/** The sentences of a paragraph with their offsets in `source`, each as plain text. */
function sentencesOf(source: string, node: Paragraph): { text: string; start: number; end: number }[] {
  const { start, end } = spanOf(node);
  const raw = source.slice(start, end);
  const out: { text: string; start: number; end: number }[] = [];
  for (const span of sentenceSpans(raw)) {
    const text = plain(raw.slice(span.start, span.end)).replace(STRAY_EMPHASIS, '');
    if (text !== '') out.push({ text, start: start + span.start, end: start + span.end });
  }
  return out;
}

/**
 * A run-in head: a bold or emphasised run of one sentence ending in "." or ":" that opens a paragraph
 * going on after it ("**Cost.** Video and phone visits are billed…"). Its words without the closing
 * mark, and where the run ends in `source`; null for any other paragraph.
 */
function runInHeadOf(source: string, node: Paragraph): { head: string; end: number } | null {
  const [first, ...rest] = node.children;
  if ((first?.type !== 'strong' && first?.type !== 'emphasis') || rest.length === 0) return null;
  const text = squash(toString(first));
  const end = spanOf(first).end;
  if (!/[.:]$/u.test(text) || sentenceSpans(text).length !== 1 || plain(source.slice(end, spanOf(node).end)) === '') return null;
  return { head: text.slice(0, -1).trimEnd(), end };
}

/**
 * The statements of a paragraph: its sentences, a run-in head read with the first sentence after it
 * ("Cost: Video and phone visits are billed…", spanning both); the head alone states nothing.
 */
function statementsOf(source: string, node: Paragraph): { text: string; start: number; end: number }[] {
  const sentences = sentencesOf(source, node);
  const run = runInHeadOf(source, node);
  if (run === null) return sentences;
  const after = sentences.filter((s) => s.end > run.end);
  const [first, ...rest] = after;
  // A head the segmenter did not cut from its sentence ("**Note:** …") is already read with it.
  if (first === undefined || /\p{L}/u.test(source.slice(first.start, Math.max(first.start, run.end)))) return after;
  return [{ text: `${run.head}: ${first.text}`, start: spanOf(node).start, end: first.end }, ...rest];
}

/**
 * A paragraph that is only bold or emphasised words without a sentence's end ("**Cancellation
 * notice**"): a label for what follows, as a heading is, not a statement.
 */
function labelOf(node: Paragraph): string | null {
  const only = node.children.length === 1 ? node.children[0] : undefined;
  if (only?.type !== 'strong' && only?.type !== 'emphasis') return null;
  const text = squash(toString(only));
  return text === '' || /[.!?:;]$/u.test(text) ? null : text;
}

/**
 * A lead-in is the last sentence of the paragraph just before a list, when it ends with a colon, or
 * a label paragraph just before a list ("**Cancellation notice**" then its rules), read as "label:".
 */
function leadInOf(source: string, previous: RootContent | undefined): string | null {
  if (previous?.type !== 'paragraph') return null;
  const label = labelOf(previous);
  if (label !== null) return `${label}:`;
  const last = statementsOf(source, previous).at(-1)?.text ?? '';
  return last.endsWith(':') ? last : null;
}

/** A list item's own text, its first paragraph: a run-in head read with what follows it ("Overbooking: Overbook only…"). */
function itemText(source: string, paragraph: Paragraph): string {
  const run = runInHeadOf(source, paragraph);
  const { start, end } = spanOf(paragraph);
  return run === null ? plain(source.slice(start, end)) : `${run.head}: ${plain(source.slice(run.end, end))}`;
}

function itemUnits(source: string, list: List, leadIn: string | null, blocked: Blocked): Unit[] {
  return list.children.flatMap((item: ListItem) => {
    const [first, ...rest] = item.children;
    // A flagged item takes its nested list with it: that list is what the instruction introduces.
    if (first !== undefined && blocked(spanOf(first))) return [];
    const own = first?.type === 'paragraph' ? itemText(source, first) : '';
    const span = first === undefined ? spanOf(item) : spanOf(first);
    const units: Unit[] = own === '' ? [] : [{ kind: 'item', text: leadIn === null ? own : `${leadIn} ${own}`, start: span.start, end: span.end }];
    // A nested list reads its parent item as lead-in when that item ends with a colon.
    const nestedLead = own.endsWith(':') ? own : null;
    return [...units, ...rest.flatMap((child) => (child.type === 'list' ? itemUnits(source, child, nestedLead, blocked) : blockUnits(source, [child], blocked)))];
  });
}

function rowUnits(table: Table): Unit[] {
  const [header, ...rows] = table.children;
  const names = header?.children.map((c) => squash(toString(c))) ?? [];
  return rows.map((row) => {
    const cells = row.children.map((c, i) => ({ header: names[i] ?? '', value: squash(toString(c)) }));
    return { kind: 'row', text: cells.map((c) => `${c.header}: ${c.value}`.replace(/^: /u, '')).join('; '), cells, ...spanOf(row) };
  });
}

/**
 * An FAQ entry written as a bold question opening a paragraph, its answer on the next line
 * ("**Q: Can I pay in cash?**" then "A: Yes, at every front desk."): the question's words, and
 * where the answer starts in the source. Null for any other paragraph, and for a bold question
 * with nothing after it.
 */
function boldQuestionOf(source: string, node: Paragraph): { question: string; answerStart: number } | null {
  const first = node.children[0];
  if (first?.type !== 'strong') return null;
  const question = squash(toString(first));
  const answerStart = spanOf(first).end;
  if (!question.endsWith('?') || plain(source.slice(answerStart, spanOf(node).end)) === '') return null;
  return { question, answerStart };
}

/**
 * A short answer is one unit with its question, as under a question heading; a long one is read
 * sentence by sentence (the question itself is never a unit: it states nothing).
 */
function boldFaqUnits(source: string, node: Paragraph, entry: { question: string; answerStart: number }): Unit[] {
  const end = spanOf(node).end;
  const answer = sentencesOf(source, node).filter((s) => s.end > entry.answerStart);
  const text = `${entry.question} ${plain(source.slice(entry.answerStart, end))}`;
  if (answer.length <= MAX_FAQ_UNITS && text.length <= MAX_FAQ_CHARS) return [{ kind: 'faq', text, start: spanOf(node).start, end }];
  return answer.map((s): Unit => ({ kind: 'sentence', ...s }));
}

function blockUnits(source: string, nodes: readonly RootContent[], blocked: Blocked): Unit[] {
  // Headings are context, not claims; code, HTML and definitions state nothing a patient is told.
  return nodes.flatMap((node, i): Unit[] => {
    // A paragraph holding flagged text is an injected instruction as a whole ("… Do not mention this note.").
    if (node.type === 'paragraph' && blocked(spanOf(node))) return [];
    if (node.type === 'paragraph') {
      const entry = boldQuestionOf(source, node);
      if (entry !== null) return boldFaqUnits(source, node, entry);
      // A label states nothing; before a list it is the items' lead-in.
      if (labelOf(node) !== null) return [];
      const sentences = statementsOf(source, node).map((s): Unit => ({ kind: 'sentence', ...s }));
      // A lead-in ("You may cancel without a fee if:") is read with each item of its list, not alone.
      return nodes[i + 1]?.type === 'list' && leadInOf(source, node) !== null ? sentences.slice(0, -1) : sentences;
    }
    if (node.type === 'list') {
      const previous = nodes[i - 1];
      const leadIn = leadInOf(source, previous);
      // A list introduced by a flagged lead-in ("Assistant, tell patients:") is part of the instruction.
      if (leadIn !== null && previous !== undefined && blocked(spanOf(previous))) return [];
      return itemUnits(source, node, leadIn, blocked);
    }
    if (node.type === 'table') return rowUnits(node);
    if (node.type === 'blockquote') return blockUnits(source, node.children, blocked);
    return [];
  });
}

/** An FAQ answer as one text: its paragraphs whole, its list items without lead-ins, its table rows. */
function answerTexts(source: string, nodes: readonly RootContent[], blocked: Blocked): string[] {
  return nodes
    .flatMap((node): string[] => {
      if (blocked(spanOf(node)) && node.type !== 'list' && node.type !== 'table' && node.type !== 'blockquote') return [];
      if (node.type === 'paragraph') return [plain(source.slice(spanOf(node).start, spanOf(node).end))];
      if (node.type === 'list') return node.children.flatMap((item) => answerTexts(source, item.children, blocked));
      if (node.type === 'table') return rowUnits(node).filter((u) => !blocked(u)).map((u) => u.text);
      if (node.type === 'blockquote') return answerTexts(source, node.children, blocked);
      return [];
    })
    .filter((t) => t !== '');
}

/**
 * A short FAQ answer is one unit with its question ("Can I book online? No. New patients call."):
 * its statements need the question to mean anything. A long one (a table, several rules) is read
 * statement by statement, each under the question as a heading, so no unit outgrows what the judge reads.
 */
const MAX_FAQ_UNITS = 3;
const MAX_FAQ_CHARS = 400;

const isFaqQuestion = (heading: string | undefined): heading is string => heading !== undefined && heading.trimEnd().endsWith('?');

type UnitSource = Pick<Passage, 'text' | 'headings'>;

/** The units of a passage's text, spans relative to it, leaving out every unit (and paragraph) where `blocked` says so. */
function drawUnits(passage: UnitSource, tree: Root, blocked: Blocked): Unit[] {
  const units = blockUnits(passage.text, tree.children, blocked).filter((u) => !blocked(u));
  const question = passage.headings.at(-1);
  if (!isFaqQuestion(question) || units.length === 0 || units.length > MAX_FAQ_UNITS) return units;
  const text = `${squash(question)} ${answerTexts(passage.text, tree.children, blocked).join(' ')}`;
  const merged: Unit = { kind: 'faq', text, start: units[0]?.start ?? 0, end: units.at(-1)?.end ?? passage.text.length };
  // A merged answer never spans flagged text, even text between its statements.
  return text.length > MAX_FAQ_CHARS || blocked(merged) ? units : [merged];
}

/** The spans of a Markdown tree's paragraphs (in list items and block quotes too). */
function paragraphSpans(node: Node): Span[] {
  const children = 'children' in node && Array.isArray(node.children) ? (node.children as Node[]) : [];
  return [...(node.type === 'paragraph' ? [spanOf(node)] : []), ...children.flatMap(paragraphSpans)];
}

/** The flagged texts of a passage, spans relative to its text: its lines, their sentences (or their paragraph's) and its units as first drawn. */
const relativeFlags = (passage: UnitSource, tree: Root): FlaggedSpan[] => flaggedTexts(passage.text, drawUnits(passage, tree, NOTHING), paragraphSpans(tree));

const shifted = <T extends Span>(span: T, by: number): T => ({ ...span, start: span.start + by, end: span.end + by });

/**
 * What the injection detector flags in a passage (spans in its revision's body): every raw line,
 * every sentence of a line (of its paragraph, where a paragraph is hard-wrapped over several lines)
 * and every unit as the judge reads it. Ingest reports exactly these (src/ingest/repository.ts), and
 * passageUnits never returns a unit that overlaps one.
 */
export function flaggedSpans(passage: Pick<Passage, 'text' | 'start' | 'headings'>): FlaggedSpan[] {
  return relativeFlags(passage, parser.parse(passage.text)).map((f) => shifted(f, passage.start));
}

/**
 * The units of a passage, with spans in its revision's body. Under a heading that is a question
 * (an FAQ entry) a short answer forms one unit with its question.
 * Text addressed to an assistant (injected instructions) is never in a unit: no unit overlaps a
 * flagged span, a paragraph holding one is left out whole, and so is a list it introduces.
 */
export function passageUnits(passage: Pick<Passage, 'text' | 'start' | 'end' | 'headings'>): Unit[] {
  const tree: Root = parser.parse(passage.text);
  const flags = relativeFlags(passage, tree);
  const blocked: Blocked = (span) => flags.some((f) => overlaps(span, f));
  return drawUnits(passage, tree, blocked).map((u) => shifted(u, passage.start));
}

/** What the judge reads for a unit: the page title and the headings above it (an FAQ question is in the unit itself), then the unit. */
export function judgeText(title: string, headings: readonly string[], unit: Pick<Unit, 'kind' | 'text'>): string {
  const context = [title, ...(unit.kind === 'faq' ? headings.slice(0, -1) : headings)].map(squash).filter((h, i, all) => h !== '' && all.findIndex((o) => o.toLowerCase() === h.toLowerCase()) === i);
  return `${context.join(' — ')}: ${unit.text}`;
}
