import { createHash } from 'node:crypto';
import type { Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { isAlias, isMap, isNode, isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import type { z } from 'zod';
import {
  FIXED_FRONT_MATTER_KEYS,
  FrontMatterSchema,
  RevisionIdSchema,
  type AssistantConfig,
  type EntityTags,
  type Revision,
  type RevisionId,
} from '../domain/index.js';

/** A problem in one policy file, reported as `FILE: message` (line when known). */
export interface FileProblem {
  readonly file: string;
  readonly line?: number;
  readonly message: string;
}

export type ParseResult =
  | { readonly ok: true; readonly revision: Revision }
  | { readonly ok: false; readonly problem: FileProblem };

const frontMatterParser = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The canonical content a revision id is computed over: the file as UTF-8 text without a byte
 * order mark and with LF line ends, so a checkout on Windows and one on Linux agree.
 */
export function canonicalContent(text: string): string {
  return text.replace(/^\uFEFF/u, '').replace(/\r\n?/gu, '\n');
}

export function revisionIdOf(canonical: string): RevisionId {
  return RevisionIdSchema.parse(`sha256:${createHash('sha256').update(canonical, 'utf8').digest('hex')}`);
}

/** The first problem, or every missing required field at once (a page written without several gets one line naming them all). */
function zodMessage(error: z.ZodError): string {
  const missing = error.issues.filter((i) => i.code === 'invalid_type' && i.input === undefined).map((i) => i.path.join('.'));
  if (missing.length > 1) return `missing required fields ${missing.join(', ')}`;
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid front matter';
  const field = issue.path.join('.');
  if (issue.code === 'invalid_type' && issue.input === undefined) return `missing required field ${field}`;
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}

function entityTags(
  extra: Record<string, unknown>,
  assistant: AssistantConfig,
): { ok: true; tags: EntityTags } | { ok: false; key: string; message: string } {
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra)) {
    const values = assistant.entities[key];
    if (values === undefined) {
      return { ok: false, key, message: `unknown front matter key ${key} (not a field and not an entity type in assistant.yaml)` };
    }
    if (typeof value !== 'string' || !Object.hasOwn(values, value)) {
      return { ok: false, key, message: `${key}: ${JSON.stringify(value)} is not one of ${Object.keys(values).join(', ')}` };
    }
    tags[key] = value;
  }
  return { ok: true, tags };
}

/** C0 controls other than tab, line feed and carriage return, and DEL: never in policy text. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B-\u000C\u000E-\u001F\u007F]/u;

function controlName(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code === 0 ? 'NUL byte' : `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * What front matter may not contain beyond well-formed YAML: anchors and aliases (alias
 * expansion is how a few bytes become gigabytes), explicit tags (!!binary and friends), and
 * control characters written as escapes. Returns the offending node's offset and a message.
 */
function frontMatterViolation(doc: Document): { readonly offset: number; readonly message: string } | null {
  let found: { offset: number; message: string } | null = null;
  visit(doc, {
    Node(_key, node) {
      const offset = node.range?.[0] ?? 0;
      if (isAlias(node)) found = { offset, message: `YAML alias *${node.source} is not allowed in front matter` };
      else if (isNode(node) && node.anchor !== undefined) found = { offset, message: `YAML anchor &${node.anchor} is not allowed in front matter` };
      else if (isNode(node) && node.tag !== undefined) found = { offset, message: `YAML tag ${node.tag.replace('tag:yaml.org,2002:', '!!')} is not allowed in front matter` };
      else if (isScalar(node) && typeof node.value === 'string') {
        const ch = CONTROL.exec(node.value)?.[0];
        if (ch !== undefined) found = { offset, message: `${controlName(ch)} in a front matter value` };
      }
      return found === null ? undefined : visit.BREAK;
    },
  });
  return found;
}

/**
 * Where an unterminated quote or flow collection opens: the parser reports a missing closing
 * character where it gave up (often lines later), but the node it was reading starts at the
 * opening character.
 */
function openingOffset(doc: Document, error: { readonly code: string; readonly message: string; readonly pos: readonly [number, number] }): number | undefined {
  if (error.code !== 'MISSING_CHAR' && !/must be sufficiently indented and end with/u.test(error.message)) return undefined;
  let best: number | undefined;
  visit(doc, (_key, node) => {
    if (!isNode(node) || node.range == null) return;
    const opens = isScalar(node) ? node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE' : (node as { flow?: boolean }).flow === true;
    const [start, end] = node.range;
    if (opens && start < error.pos[0] && end >= error.pos[0] && (best === undefined || start > best)) best = start;
  });
  return best;
}

/** The 0-based offset of a top-level key in the front matter, for a line number. */
function keyOffset(doc: Document, key: unknown): number | undefined {
  if (!isMap(doc.contents)) return undefined;
  const pair = doc.contents.items.find((item) => isScalar(item.key) && item.key.value === key);
  return isNode(pair?.key) ? pair.key.range?.[0] : undefined;
}

/** Parse one policy file (its raw bytes) into a revision, or say what is wrong with it. */
export function parsePolicyFile(options: {
  readonly file: string;
  readonly bytes: Uint8Array;
  readonly assistant: AssistantConfig;
}): ParseResult {
  const { file, bytes, assistant } = options;
  const fail = (message: string, line?: number): ParseResult => ({
    ok: false,
    problem: line === undefined ? { file, message } : { file, line, message },
  });
  let text: string;
  try {
    text = canonicalContent(utf8.decode(bytes));
  } catch {
    return fail('not valid UTF-8');
  }
  const control = CONTROL.exec(text);
  if (control !== null) {
    return fail(`${controlName(control[0])} (a policy file is text)`, text.slice(0, control.index).split('\n').length);
  }
  const tree: Root = frontMatterParser.parse(text);
  const yamlNode = tree.children[0];
  if (yamlNode?.type !== 'yaml' || yamlNode.position === undefined) {
    if (/^---[ \t]*(?:\n|$)/u.test(text)) return fail('front matter opened at line 1 is never closed (no --- line ends it)', 1);
    return fail('missing front matter (the file must start with a --- YAML block)');
  }
  const fmLine = yamlNode.position.start.line;
  const lines = new LineCounter();
  const doc = parseDocument(yamlNode.value, { prettyErrors: false, uniqueKeys: true, lineCounter: lines });
  // The YAML block starts on the line after the opening ---.
  const lineAt = (offset: number): number => lines.linePos(offset).line + fmLine;
  const yamlError = doc.errors[0] ?? doc.warnings[0];
  if (yamlError !== undefined) {
    return fail(`malformed front matter: ${yamlError.message.split('\n')[0] ?? ''}`, lineAt(openingOffset(doc, yamlError) ?? yamlError.pos[0]));
  }
  const violation = frontMatterViolation(doc);
  if (violation !== null) return fail(violation.message, lineAt(violation.offset));
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 0 });
  } catch (error) {
    return fail(`malformed front matter: ${error instanceof Error ? error.message : String(error)}`, fmLine);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return fail('front matter must be a YAML mapping', fmLine);
  }
  const parsed = FrontMatterSchema.safeParse(data);
  if (!parsed.success) {
    const offset = keyOffset(doc, parsed.error.issues[0]?.path[0]);
    return fail(zodMessage(parsed.error), offset === undefined ? fmLine : lineAt(offset));
  }
  const fm = parsed.data;
  const extra = Object.fromEntries(Object.entries(fm).filter(([key]) => !FIXED_FRONT_MATTER_KEYS.has(key)));
  const tags = entityTags(extra, assistant);
  if (!tags.ok) {
    const offset = keyOffset(doc, tags.key);
    return fail(tags.message, offset === undefined ? fmLine : lineAt(offset));
  }

  const end = yamlNode.position.end.offset ?? 0;
  const bodyStart = text[end] === '\n' ? end + 1 : end;
  const body = text.slice(bodyStart);
  if (body.trim() === '') return fail('empty body: a policy file needs text after its front matter');
  return {
    ok: true,
    revision: {
      revision: revisionIdOf(text),
      sourceId: fm.source_id,
      title: fm.title,
      status: fm.status,
      effectiveDate: fm.effective_date,
      version: fm.version ?? null,
      reviewBy: fm.review_by ?? null,
      owner: fm.owner ?? null,
      audience: [...new Set(fm.audience)],
      entities: tags.tags,
      path: file,
      body,
      frontMatter: text.slice(0, bodyStart),
    },
  };
}
