import { createHash } from 'node:crypto';
import type { Root } from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { parseDocument } from 'yaml';
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

function zodMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid front matter';
  const field = issue.path.join('.');
  if (issue.code === 'invalid_type' && issue.input === undefined) return `missing required field ${field}`;
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}

function entityTags(
  extra: Record<string, unknown>,
  assistant: AssistantConfig,
): { ok: true; tags: EntityTags } | { ok: false; message: string } {
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra)) {
    const values = assistant.entities[key];
    if (values === undefined) {
      return { ok: false, message: `unknown front matter key ${key} (not a field and not an entity type in assistant.yaml)` };
    }
    if (typeof value !== 'string' || !Object.hasOwn(values, value)) {
      return { ok: false, message: `${key}: ${JSON.stringify(value)} is not one of ${Object.keys(values).join(', ')}` };
    }
    tags[key] = value;
  }
  return { ok: true, tags };
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
  const tree: Root = frontMatterParser.parse(text);
  const yamlNode = tree.children[0];
  if (yamlNode?.type !== 'yaml' || yamlNode.position === undefined) {
    return fail('missing front matter (the file must start with a --- YAML block)');
  }
  const doc = parseDocument(yamlNode.value, { prettyErrors: false, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError !== undefined) {
    const line = (yamlError.linePos?.[0].line ?? 0) + 1;
    return fail(`malformed front matter: ${yamlError.message.split('\n')[0] ?? ''}`, line);
  }
  const data: unknown = doc.toJS({ maxAliasCount: 0 });
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return fail('front matter must be a YAML mapping');
  }
  const parsed = FrontMatterSchema.safeParse(data);
  if (!parsed.success) return fail(zodMessage(parsed.error));
  const fm = parsed.data;
  const extra = Object.fromEntries(Object.entries(fm).filter(([key]) => !FIXED_FRONT_MATTER_KEYS.has(key)));
  const tags = entityTags(extra, assistant);
  if (!tags.ok) return fail(tags.message);

  const end = yamlNode.position.end.offset ?? 0;
  const body = text.slice(text[end] === '\n' ? end + 1 : end);
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
    },
  };
}
