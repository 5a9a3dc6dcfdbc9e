import path from 'node:path';
import { formatProblem, type IngestReport, type RepositoryScan } from '../ingest/index.js';
import { shortRev } from './format.js';

export function formatIngest(report: IngestReport): string {
  const head = report.changed
    ? `ingested ${report.root}: ${report.added.length} new revision(s), ${report.passagesAdded} passage(s); ${report.revisionsPresent} revision(s) in the repository now (the index keeps every earlier one); commit ${report.commit}`
    : `ingested ${report.root}: no change (${report.revisionsPresent} revision(s) in the repository; commit ${report.commit})`;
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

/**
 * `ingest --report`: what a repository holds (each revision with its status, dates and audience),
 * what ingest would skip or refuse, and every line addressed to an assistant; nothing is written.
 */
export function formatScan(scan: RepositoryScan): string {
  const sources = new Set(scan.revisions.map((r) => r.sourceId)).size;
  const head = `report on ${scan.root}: ${scan.revisions.length} revision(s) of ${sources} source(s), ${scan.problems.length} problem(s), ${scan.skipped.length} skipped, ${scan.warnings.length} line(s) addressed to an assistant; nothing written`;
  const revisions = [...scan.revisions]
    .sort((a, b) => a.sourceId.localeCompare(b.sourceId) || a.effectiveDate.localeCompare(b.effectiveDate))
    .map((r) => `  ${r.sourceId}@${r.version ?? '-'} ${r.status}, effective ${r.effectiveDate}${r.reviewBy === null ? '' : `, review by ${r.reviewBy}`}, for ${r.audience.join('+')} ${shortRev(r.revision)} ${r.path}`);
  return [
    head,
    ...revisions,
    ...formatSkipped(scan.skipped),
    ...scan.warnings.map((w) => `flagged: ${formatProblem(w)}`),
    ...scan.problems.map((p) => `problem: ${formatProblem(p)}`),
  ].join('\n');
}
