import type { Trace } from '../domain/index.js';
import { listedQuery, payloadOf, type StoredTrace } from '../trace/index.js';

export const shortRev = (revision: string): string => `${revision.slice(0, 19)}…`;
const oneLine = (text: string): string => text.replace(/\s+/gu, ' ').trim();

export function formatTrace(trace: Trace): string {
  const lines = [trace.answer, ''];
  if (trace.citations.length > 0) {
    lines.push('Sources:');
    for (const c of trace.citations) {
      lines.push(`  [${c.label}] ${c.source_id}, version ${c.version ?? '(none)'}, revision ${shortRev(c.revision)}${c.stale === true ? ` (stale: review was due ${c.review_by ?? ''})` : ''}`);
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
