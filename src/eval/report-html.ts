import type { EvalReport } from './runner.js';

const esc = (text: string): string =>
  text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** A horizontal bar chart as inline SVG: no scripts, no external assets. */
function bars(title: string, rows: readonly (readonly [string, number])[], format: (v: number) => string = String): string {
  const max = Math.max(1, ...rows.map(([, v]) => v));
  const height = rows.length * 24 + 8;
  const items = rows
    .map(([label, value], i) => {
      const y = i * 24 + 4;
      const w = Math.round((value / max) * 320);
      return `<text x="0" y="${y + 15}">${esc(label)}</text><rect x="110" y="${y}" width="${w}" height="18" fill="#2f6f9f"><title>${esc(label)}: ${esc(format(value))}</title></rect><text x="${116 + w}" y="${y + 15}">${esc(format(value))}</text>`;
    })
    .join('');
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" width="520" height="${height}" font-size="12">${items}</svg></figure>`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return `<table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** The eval report as one self-contained HTML page. */
export function renderHtmlReport(report: EvalReport): string {
  const m = report.metrics;
  const outcomes = ['answer', 'abstain', 'clarify', 'out_of_scope'];
  const ranks = Object.entries(m.retrieval.rankDistribution).sort(([a], [b]) => (a === 'miss' ? 1 : b === 'miss' ? -1 : Number(a) - Number(b)));
  const failureRows = (Object.entries(m.failures) as [string, readonly string[]][]).map(([name, ids]) => [name, String(ids.length), ids.join(', ')]);
  const headline = [
    ['outcome accuracy', pct(m.outcomes.accuracy)],
    ['cases passed', `${report.cases.filter((c) => c.passed).length} / ${m.cases}`],
    ['unsupported answers', String(m.outcomes.unsupportedAnswers.length)],
    ['wrong abstentions', String(m.outcomes.wrongAbstentions.length)],
    ['recall@1 / @3 / @5', `${pct(m.retrieval.recallAt['1'])} / ${pct(m.retrieval.recallAt['3'])} / ${pct(m.retrieval.recallAt['5'])}`],
    ['MRR', m.retrieval.mrr.toFixed(3)],
    ['citation precision / recall', `${pct(m.generation.citationPrecision)} / ${pct(m.generation.citationRecall)}`],
    ['citation resolution', pct(m.generation.citationResolutionRate)],
    ['latency p50 / p95', `${m.latencyMs.p50.toFixed(1)} / ${m.latencyMs.p95.toFixed(1)} ms`],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>citetrace evaluation</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f3f6}.fail{background:#fdecea}.pass{background:#edf7ed}figure{margin:1rem 0}figcaption{font-weight:600}
.headline td:last-child{font-weight:600}
</style></head><body>
<h1>citetrace evaluation: ${m.cases} cases, k = ${m.k}</h1>
<h2>Headline</h2>
<table class="headline"><tbody>${headline.map(([k, v]) => `<tr><th scope="row">${esc(k ?? '')}</th><td>${esc(v ?? '')}</td></tr>`).join('')}</tbody></table>
<h2>Retrieval: rank of the supporting revision</h2>
${bars('cases per rank', ranks)}
<h2>Outcomes: expected (rows) against actual (columns)</h2>
${table(['expected \\ actual', ...outcomes], outcomes.map((e) => [e, ...outcomes.map((a) => String(m.outcomes.confusion[e]?.[a] ?? 0))]))}
<p>Unsupported answers: ${esc(m.outcomes.unsupportedAnswers.join(', ') || 'none')}. Wrong abstentions: ${esc(m.outcomes.wrongAbstentions.join(', ') || 'none')}.</p>
<h2>Scope routing: expected (rows) against the route taken (columns)</h2>
${table(['expected \\ route', 'in scope', 'emergency', 'crisis', 'clinical'], (['out_of_scope', 'in_scope'] as const).map((e) => [e.replace('_', ' '), ...['in_scope', 'EMERGENCY', 'CRISIS', 'CLINICAL'].map((r) => String(m.routing.confusion[e][r] ?? 0))]))}
<p>Expected out of scope but not routed: ${esc(m.routing.notRouted.join(', ') || 'none')}. In scope but routed away: ${esc(m.routing.routedAway.join(', ') || 'none')}.</p>
<h2>Failure matrix</h2>
${table(['failure', 'count', 'cases'], failureRows)}
<h2>Context budget sweep</h2>
${
  m.sweep.length === 0
    ? '<p>Not run (pass <code>--sweep</code>).</p>'
    : `${bars('citation coverage by k', m.sweep.map((p) => [`k = ${p.k}`, p.citationCoverage]), pct)}
${table(['k', 'accuracy', 'citation coverage', 'unsupported answers', 'p50 ms', 'p95 ms'], m.sweep.map((p) => [String(p.k), pct(p.accuracy), pct(p.citationCoverage), String(p.unsupportedAnswers), p.latencyMs.p50.toFixed(1), p.latencyMs.p95.toFixed(1)]))}
<p>Smallest k meeting the goals: ${m.smallestGoodK === null ? 'none' : String(m.smallestGoodK)}.</p>`
}
<h2>By tag</h2>
${table(['tag', 'cases', 'passed'], Object.entries(m.byTag).sort(([a], [b]) => a.localeCompare(b)).map(([tag, v]) => [tag, String(v.cases), String(v.passed)]))}
<h2>Cases</h2>
<table><thead><tr><th scope="col">case</th><th scope="col">expected</th><th scope="col">actual</th><th scope="col">rank</th><th scope="col">question and answer</th><th scope="col">failures</th></tr></thead><tbody>
${report.cases
  .map(
    (c) =>
      `<tr class="${c.passed ? 'pass' : 'fail'}"><td>${esc(c.id)}</td><td>${esc(c.expect)}</td><td>${esc(c.actual)}${c.reason ? ` (${esc(c.reason)})` : ''}</td><td>${c.supportRank ?? '-'}</td><td><b>${esc(c.trace.query)}</b><br>${esc(c.trace.answer)}</td><td>${esc(c.failures.join('; '))}</td></tr>`,
  )
  .join('\n')}
</tbody></table>
</body></html>
`;
}
