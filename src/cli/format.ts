import path from 'node:path';
import type { Trace } from '../domain/index.js';
import { formatProblem, type IngestReport } from '../ingest/index.js';
import { listedQuery, payloadOf, type StoredTrace } from '../trace/index.js';

const shortRev = (revision: string): string => `${revision.slice(0, 19)}…`;
const oneLine = (text: string): string => text.replace(/\s+/gu, ' ').trim();

export function formatTrace(trace: Trace): string {
  const lines = [trace.answer, ''];
  if (trace.citations.length > 0) {
    lines.push('Sources:');
    for (const c of trace.citations) {
      lines.push(`  [${c.label}] ${c.source_id}, version ${c.version ?? '(none)'}, revision ${shortRev(c.revision)}`);
      lines.push(`       "${oneLine(c.text)}"`);
    }
    lines.push('');
  }
  lines.push(`outcome: ${trace.outcome}${trace.reason === null ? '' : ` (${trace.reason})`} · role ${trace.role} · as of ${trace.as_of} · trace ${trace.trace_id}`);
  return lines.join('\n');
}

export function formatTraceDetail(stored: StoredTrace): string {
  const t = payloadOf(stored);
  const lines = [
    `trace ${t.trace_id} (#${stored.seq}, ${t.created_at})`,
    `question: ${t.query}`,
    `normalized: ${t.normalized_query}`,
    `role ${t.role} · as of ${t.as_of}`,
    '',
    'retrieved:',
    ...t.retrieved.map((r) => {
      const cited = t.citations.some((c) => c.label === r.label) ? 'cited' : r.offered ? 'offered' : 'considered';
      return `  ${r.label} #${r.rank} score ${r.score.toFixed(4)} ${r.source_id}@${r.version ?? '-'} ${shortRev(r.revision)} [${r.start}-${r.end}] ${cited}`;
    }),
    '',
    'answer:',
    ...(t.sentences.length > 0 ? t.sentences.map((s) => `  ${s.text}`) : [`  ${t.answer}`]),
    '',
    `outcome: ${t.outcome}${t.reason === null ? '' : ` (${t.reason})`}${t.detail === null ? '' : ` · ${t.detail}`}`,
    `config: ${JSON.stringify(t.config)}`,
    ...(t.otel_trace_id ? [`opentelemetry trace: ${t.otel_trace_id}`] : []),
    `hash: ${stored.hash} (previous ${stored.prevHash})`,
  ];
  return lines.join('\n');
}

export function formatTraceRow(stored: StoredTrace): string {
  const c = stored.columns;
  return [c.trace_id ?? '', c.created_at ?? '', c.role ?? '', c.outcome ?? '', c.reason ?? '-', oneLine(listedQuery(stored)).slice(0, 60)].join('\t');
}

export function formatIngest(report: IngestReport): string {
  const head = report.changed
    ? `ingested ${report.root}: ${report.added.length} new revision(s), ${report.passagesAdded} passage(s); ${report.revisionsPresent} revision(s) present; commit ${report.commit}`
    : `ingested ${report.root}: no change (${report.revisionsPresent} revision(s) present; commit ${report.commit})`;
  const added = report.added.map((a) => `  + ${a.sourceId}@${a.version ?? '-'} ${shortRev(a.revision)} ${a.path}`);
  const withdrawn = report.withdrawn.map((s) => `  - ${s} withdrawn (no file left; history kept)`);
  const warnings = report.warnings.map((w) => `warning: ${formatProblem(w)}`);
  return [head, ...added, ...withdrawn, ...formatSkipped(report.skipped), ...warnings].join('\n');
}

/** One line per skipped file with its reason; hidden entries (.git, .github, ...) share one line. */
export function formatSkipped(skipped: IngestReport['skipped']): string[] {
  const hidden = skipped.filter((s) => s.reason === 'hidden').map((s) => path.basename(s.file));
  return [
    ...skipped.filter((s) => s.reason !== 'hidden').map((s) => `skipped: ${s.file}: ${s.reason}`),
    ...(hidden.length === 0 ? [] : [`skipped: ${hidden.length} hidden entr${hidden.length === 1 ? 'y' : 'ies'} (${hidden.join(', ')})`]),
  ];
}
