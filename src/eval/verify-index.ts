import { chunkIdOf, RevisionIdSchema, type AssistantConfig, type Revision } from '../domain/index.js';
import {
  changedIndexFiles,
  passageFacts,
  readCommit,
  revisionFacts,
  type IndexEvidence,
  type PassageFacts,
  type IndexAt,
  type PolicyIndex,
  type RevisionFacts,
  type StoredPassageRow,
  type StoredRevisionRow,
} from '../index-store/index.js';
import { parsePolicyFile, revisionIdOf } from '../ingest/index.js';

export interface IndexReport {
  readonly revisions: number;
  readonly passages: number;
  /** One line per difference, naming the revision or passage and the field; empty when the index is intact. */
  readonly findings: readonly string[];
}

const shown = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Each field of `stored` that differs from `expected`, as "field is X but ... says Y". */
function differences<T extends object>(stored: T, expected: T, says: string): string[] {
  return (Object.keys(expected) as (keyof T & string)[])
    .filter((key) => JSON.stringify(stored[key]) !== JSON.stringify(expected[key]))
    .map((key) => `${key} is ${shown(stored[key])} but ${says} ${shown(expected[key])}`);
}

/**
 * One stored revision against its own text: the text must hash to the revision id, and every
 * metadata column must be what the hashed front matter says. Returns the revision as its text
 * gives it (null when the text is missing or no longer parses) and the findings.
 */
function checkRevision(row: StoredRevisionRow, assistant: AssistantConfig): { readonly hashed: Revision | null; readonly findings: string[] } {
  const name = `revision ${row.revision} (${row.path})`;
  if (row.front_matter === null) return { hashed: null, findings: [`${name}: no front matter stored (indexed before it was kept), so its content hash cannot be recomputed`] };
  const text = row.front_matter + row.body;
  const findings: string[] = [];
  const digest = revisionIdOf(text);
  if (digest !== row.revision) findings.push(`${name}: stored text hashes to ${digest}, not to its revision id`);
  const parsed = parsePolicyFile({ file: row.path, bytes: Buffer.from(text, 'utf8'), assistant });
  if (!parsed.ok) return { hashed: null, findings: [...findings, `${name}: hashed front matter no longer parses (${parsed.problem.message})`] };
  findings.push(...differences(row as RevisionFacts, revisionFacts(parsed.revision), 'its hashed front matter says').map((d) => `${name}: ${d}`));
  return { hashed: parsed.revision, findings };
}

function checkPassage(row: StoredPassageRow, revision: { readonly row: StoredRevisionRow; readonly hashed: Revision | null } | undefined): string[] {
  const name = `passage ${row.chunk_id}`;
  if (revision === undefined) return [`${name}: its revision ${row.revision} is not in the index`];
  const findings: string[] = [];
  if (RevisionIdSchema.safeParse(row.revision).success && row.chunk_id !== chunkIdOf(RevisionIdSchema.parse(row.revision), row.start, row.end)) {
    findings.push(`${name}: chunk id does not name its revision and span [${row.start}, ${row.end})`);
  }
  const body = revision.hashed?.body ?? revision.row.body;
  if (body.slice(row.start, row.end) !== row.text) findings.push(`${name}: text differs from its revision between ${row.start} and ${row.end}`);
  if (revision.hashed !== null) findings.push(...differences(row as PassageFacts, passageFacts(revision.hashed), 'its revision\'s hashed front matter says').map((d) => `${name}: ${d}`));
  return findings;
}

/** The columns two revisions of one (source_id, version) are compared on: content, audience, status, dates and tags. */
const LABELLED_FIELDS = ['body', 'title', 'status', 'effective_date', 'review_by', 'owner', 'audience', 'entities'] as const satisfies readonly (keyof StoredRevisionRow)[];

/**
 * Contract section 1: a (source_id, version) label names one revision forever. The ingester
 * refuses a second; a label naming several stored revisions (a patched ingester, or rows written
 * by hand, in one commit or several) is a finding naming the revisions, their commits and the
 * fields that differ (a widened audience shows as "audience").
 */
function labelFindings(rows: readonly StoredRevisionRow[]): string[] {
  const byLabel = new Map<string, StoredRevisionRow[]>();
  for (const row of rows) {
    if (row.version === null) continue;
    const key = JSON.stringify([row.source_id, row.version]);
    const group = byLabel.get(key) ?? [];
    if (!group.some((r) => r.revision === row.revision)) group.push(row);
    byLabel.set(key, group);
  }
  return [...byLabel.values()]
    .filter((group) => group.length > 1)
    .map((group) => {
      const [first] = group;
      const fields = LABELLED_FIELDS.filter((f) => group.some((r) => JSON.stringify(r[f]) !== JSON.stringify(first?.[f])));
      const named = group.map((r) => `${r.revision} (commit ${r.ingest_seq}, ${r.path})`).join(', ');
      return `(source_id, version) (${first?.source_id ?? ''}, ${first?.version ?? ''}) names ${group.length} revisions: ${named}; they differ in ${fields.join(', ') || 'front matter only'}`;
    });
}

/**
 * Contract section 6, the index: each stored revision's text hashes to its revision id; each
 * passage is its revision's text between start and end, under the chunk id that names them; each
 * revision's (and passage's) audience, status, dates and tags are those of its hashed front
 * matter; every revision the manifest names is stored, once. Entity keys are parsed with the
 * assistant.yaml of the commit that ingested the revision.
 */
function indexFindings(evidence: IndexEvidence, options: { readonly present: readonly string[]; readonly assistantAt: (seq: number) => AssistantConfig }): string[] {
  const findings: string[] = [];
  const byId = new Map<string, { readonly row: StoredRevisionRow; readonly hashed: Revision | null }>();
  for (const row of evidence.revisions) {
    if (byId.has(row.revision)) findings.push(`revision ${row.revision} (${row.path}): stored more than once`);
    const { hashed, findings: found } = checkRevision(row, options.assistantAt(row.ingest_seq));
    findings.push(...found);
    byId.set(row.revision, { row, hashed });
  }
  findings.push(...labelFindings(evidence.revisions));
  for (const row of evidence.passages) findings.push(...checkPassage(row, byId.get(row.revision)));
  findings.push(...options.present.filter((id) => !byId.has(id)).map((id) => `manifest: present revision ${id} is not stored`));
  return findings;
}

export async function verifyIndex(options: { readonly index: PolicyIndex; readonly dataDir: IndexAt }): Promise<IndexReport> {
  const evidence = await options.index.evidence();
  const assistants = new Map<number, AssistantConfig>();
  for (const seq of new Set(evidence.revisions.map((r) => r.ingest_seq))) {
    const commit = await readCommit(options.dataDir, seq).catch(() => null);
    assistants.set(seq, commit?.assistant ?? options.index.manifest.assistant);
  }
  const { manifest } = options.index;
  const logged = await readCommit(options.dataDir, manifest.seq).catch(() => null);
  const findings = [
    ...(JSON.stringify(logged) === JSON.stringify(manifest) ? [] : [`manifest: differs from commit ${manifest.seq} in the commit log`]),
    ...(manifest.files === undefined
      ? ['manifest: no file digests (committed before they were kept), so the index files cannot be checked byte for byte']
      : await changedIndexFiles(options.dataDir, manifest.files)),
    ...indexFindings(evidence, { present: manifest.present, assistantAt: (seq) => assistants.get(seq) ?? manifest.assistant }),
  ];
  return { revisions: evidence.revisions.length, passages: evidence.passages.length, findings };
}
