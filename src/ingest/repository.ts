import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  AssistantConfigSchema,
  CitetraceError,
  type AssistantConfig,
  type Revision,
  type RevisionId,
} from '../domain/index.js';
import { isInstruction } from '../policy/index.js';
import { canonicalContent, parsePolicyFile, type FileProblem } from './parse.js';

/** Editor swap, backup and temporary files are never policy revisions. */
export function isPolicyFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.') && !name.startsWith('#') && !name.endsWith('~');
}

function isIgnoredDir(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

async function listPolicyFiles(root: string, rel = ''): Promise<string[]> {
  const entries = await readdir(path.join(root, rel), { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory() && !isIgnoredDir(entry.name)) out.push(...(await listPolicyFiles(root, child)));
    else if (entry.isFile() && isPolicyFileName(entry.name)) out.push(child);
  }
  return out;
}

export async function readAssistantConfig(root: string): Promise<AssistantConfig> {
  const file = path.join(root, 'assistant.yaml');
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    throw new CitetraceError('BAD_POLICY_FILE', `${file}: missing (every policy repository needs assistant.yaml at its root)`);
  }
  let data: unknown;
  try {
    data = parseYaml(raw);
  } catch (error) {
    throw new CitetraceError('BAD_POLICY_FILE', `${file}: malformed YAML: ${(error as Error).message.split('\n')[0] ?? ''}`);
  }
  const parsed = AssistantConfigSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CitetraceError('BAD_POLICY_FILE', `${file}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** A policy repository read in one pass: its revisions, or every problem found. */
export interface RepositoryScan {
  readonly root: string;
  readonly assistant: AssistantConfig;
  /** Distinct revisions present in the repository (identical files collapse to one revision). */
  readonly revisions: readonly Revision[];
  readonly problems: readonly FileProblem[];
  /** Not errors: lines that address the assistant rather than patients (possible prompt injection). */
  readonly warnings: readonly FileProblem[];
}

/** Lines of a body that read as instructions to an assistant; they are never used as answer sentences. */
function instructionWarnings(file: string, text: string, body: string): FileProblem[] {
  const bodyLine = text.slice(0, text.length - body.length).split('\n').length;
  return body.split('\n').flatMap((line, i) =>
    isInstruction(line) ? [{ file, line: bodyLine + i, message: 'text addressed to an assistant, not to patients (possible prompt injection); it is never used as an answer' }] : [],
  );
}

export function formatProblem(p: FileProblem): string {
  return `${p.file}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`;
}

/** Read every `*.md` under root; also checks that no two files claim one (source_id, version) with different content. */
export async function scanRepository(root: string): Promise<RepositoryScan> {
  let files: string[];
  try {
    files = await listPolicyFiles(root);
  } catch (error) {
    throw new CitetraceError('BAD_INPUT', `${root}: cannot read policy repository (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
  }
  const assistant = await readAssistantConfig(root);
  const problems: FileProblem[] = [];
  const warnings: FileProblem[] = [];
  const byRevision = new Map<RevisionId, Revision>();
  const byLabel = new Map<string, Revision>();
  for (const rel of files) {
    const file = path.join(root, rel);
    const bytes = await readFile(file);
    const result = parsePolicyFile({ file, bytes, assistant });
    if (!result.ok) {
      problems.push(result.problem);
      continue;
    }
    const rev = result.revision;
    warnings.push(...instructionWarnings(file, canonicalContent(bytes.toString('utf8')), rev.body));
    if (rev.version !== null) {
      const key = `${rev.sourceId}@${rev.version}`;
      const other = byLabel.get(key);
      if (other !== undefined && other.revision !== rev.revision) {
        problems.push({ file, message: `(source_id, version) (${rev.sourceId}, ${rev.version}) is also claimed by ${other.path} with different content` });
        continue;
      }
      byLabel.set(key, rev);
    }
    if (!byRevision.has(rev.revision)) byRevision.set(rev.revision, rev);
  }
  if (files.length === 0) problems.push({ file: root, message: 'no *.md policy files found' });
  return { root, assistant, revisions: [...byRevision.values()], problems, warnings };
}
