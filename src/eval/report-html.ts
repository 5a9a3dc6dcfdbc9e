import { ROUTING_REASONS, type Outcome, type Trace } from '../domain/index.js';
import type { FailureMatrix } from './metrics.js';
import type { EvalReport } from './runner.js';

type ReportCase = EvalReport['cases'][number];

const esc = (text: string): string =>
  text.replace(/[&<>"']/gu, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

const OUTCOMES: readonly Outcome[] = ['answer', 'abstain', 'clarify', 'out_of_scope'];
const OUTCOME_LABEL: Readonly<Record<Outcome, string>> = { answer: 'answer', abstain: 'abstain', clarify: 'ask to clarify', out_of_scope: 'out of scope' };
const FAILURE_LABEL: Readonly<Record<keyof FailureMatrix, string>> = {
  correctSourceNotRetrieved: 'correct source not retrieved',
  oldAndCurrentRanked: 'old and current revision of a source both retrieved',
  unknownLabel: 'citation of a label that was not offered',
  ruleWithoutEvidence: 'claim without evidence (unsupported sentence or citation gap)',
  underspecified: 'asked to clarify',
  forbiddenCited: 'forbidden revision cited',
};
/** NO_SUPPORT -> "no support". */
const reasonLabel = (reason: string | null): string => (reason === null ? '' : reason.toLowerCase().replaceAll('_', ' '));
const outcomeWithReason = (outcome: Outcome, reason: string | null): string => `${OUTCOME_LABEL[outcome]}${reason ? ` (${reasonLabel(reason)})` : ''}`;

/** A judgement's failure strings in plain words. */
function why(c: ReportCase): string[] {
  return c.failures.map((f) => {
    if (f.startsWith('outcome ')) return `expected ${OUTCOME_LABEL[c.expect]}, got ${outcomeWithReason(c.actual, c.reason)}`;
    if (f.startsWith('no citation of ')) return `did not cite ${f.slice('no citation of '.length).replaceAll(' | ', ' or ')}`;
    if (f.startsWith('missing fact ')) return `the answer lacks the fact ${f.slice('missing fact '.length).replaceAll(' | ', ' or ')}`;
    if (f.startsWith('cited forbidden ')) return `cited the forbidden revision ${f.slice('cited forbidden '.length)}`;
    if (f.startsWith('says ')) return `the answer says ${f.slice('says '.length)}, which it must not`;
    return f;
  });
}

/** A horizontal bar chart as inline SVG: no scripts, no external assets. */
function bars(title: string, rows: readonly (readonly [string, number])[], format: (v: number) => string = String, max = Math.max(1, ...rows.map(([, v]) => v))): string {
  const height = rows.length * 24 + 8;
  const items = rows
    .map(([label, value], i) => {
      const y = i * 24 + 4;
      const w = Math.round((value / max) * 300);
      return `<text x="0" y="${y + 15}">${esc(label)}</text><rect x="180" y="${y}" width="${w}" height="18" fill="#2f6f9f"><title>${esc(label)}: ${esc(format(value))}</title></rect><text x="${186 + w}" y="${y + 15}">${esc(format(value))}</text>`;
    })
    .join('');
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" width="560" height="${height}" font-size="12">${items}</svg></figure>`;
}

interface Series {
  readonly name: string;
  readonly color: string;
  readonly counts: readonly number[];
}

/** A vertical histogram of one or more series over the same bins, with an optional labelled marker between bins. */
function histogram(title: string, bins: readonly string[], series: readonly Series[], marker?: { readonly at: number; readonly label: string }): string {
  const max = Math.max(1, ...series.flatMap((s) => s.counts));
  const plot = 160;
  const slot = Math.max(36, 12 + series.length * 16);
  const left = 34;
  const width = left + bins.length * slot + 10;
  const y = (v: number): number => 10 + plot - Math.round((v / max) * plot);
  const columns = bins
    .map((bin, i) => {
      const x0 = left + i * slot + 6;
      const rects = series
        .map((s, j) => {
          const v = s.counts[i] ?? 0;
          return `<rect x="${x0 + j * 16}" y="${y(v)}" width="14" height="${10 + plot - y(v)}" fill="${s.color}"><title>${esc(`${s.name}, ${bin}: ${v}`)}</title></rect>${v > 0 ? `<text x="${x0 + j * 16 + 7}" y="${y(v) - 2}" text-anchor="middle" font-size="10">${v}</text>` : ''}`;
        })
        .join('');
      return `${rects}<text x="${left + i * slot + slot / 2}" y="${plot + 26}" text-anchor="middle" font-size="10">${esc(bin)}</text>`;
    })
    .join('');
  const axis = `<line x1="${left}" y1="${10 + plot}" x2="${width - 6}" y2="${10 + plot}" stroke="#555"/><text x="${left - 4}" y="${y(max) + 4}" text-anchor="end" font-size="10">${max}</text><text x="${left - 4}" y="${10 + plot}" text-anchor="end" font-size="10">0</text>`;
  const mark =
    marker === undefined
      ? ''
      : `<line x1="${left + marker.at * slot}" y1="4" x2="${left + marker.at * slot}" y2="${plot + 14}" stroke="#a4262c" stroke-dasharray="4 3"/><text x="${left + marker.at * slot + 4}" y="12" fill="#a4262c" font-size="11">${esc(marker.label)}</text>`;
  const legend = series.map((s) => `<span class="key"><span style="background:${s.color}"></span>${esc(s.name)}</span>`).join(' ');
  return `<figure><figcaption>${esc(title)}</figcaption><svg role="img" aria-label="${esc(title)}" width="${width}" height="${plot + 36}" font-size="12">${axis}${columns}${mark}</svg>${series.length > 1 ? `<div class="legend">${legend}</div>` : ''}</figure>`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  return `<table><thead><tr>${head.map((h) => `<th scope="col">${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** The support judge's best score among a trace's offered passages: the score it answers or abstains on. */
const bestJudged = (t: Trace): number | null => {
  const scores = t.retrieved.flatMap((r) => (r.offered && r.judged !== undefined ? [r.judged] : []));
  return scores.length === 0 ? null : Math.max(...scores);
};

const judgeOf = (t: Trace): { readonly threshold: number } | undefined => {
  const d = t.support_decision;
  return d !== null && d !== undefined && 'judge' in d ? d.judge : undefined;
};

function supportChart(cases: readonly ReportCase[]): string {
  const bins = Array.from({ length: 10 }, (_, i) => `${(i / 10).toFixed(1)}–${((i + 1) / 10).toFixed(1)}`);
  const count = (outcome: Outcome): { counts: number[]; unscored: number } => {
    const counts = bins.map(() => 0);
    let unscored = 0;
    for (const c of cases.filter((x) => x.actual === outcome)) {
      const score = bestJudged(c.trace);
      if (score === null) unscored += 1;
      else {
        const bin = Math.min(9, Math.floor(score * 10));
        counts[bin] = (counts[bin] ?? 0) + 1;
      }
    }
    return { counts, unscored };
  };
  const answered = count('answer');
  const abstained = count('abstain');
  const threshold = cases.map((c) => judgeOf(c.trace)?.threshold).find((x) => x !== undefined);
  const chart = histogram(
    "cases by the support judge's best score among offered passages",
    bins,
    [
      { name: 'answered', color: '#2f6f9f', counts: answered.counts },
      { name: 'abstained', color: '#d08a2c', counts: abstained.counts },
    ],
    threshold === undefined ? undefined : { at: threshold * 10, label: `threshold ${threshold.toFixed(2)}` },
  );
  return `${chart}<p>Not scored (nothing offered to decide on): answered ${answered.unscored}, abstained ${abstained.unscored}.</p>`;
}

function latencyChart(cases: readonly ReportCase[]): string {
  const values = cases.flatMap((c) => (c.latencyMs === undefined ? [] : [c.latencyMs]));
  if (values.length === 0) return '<p>Not recorded in this report.</p>';
  const raw = Math.max(...values) / 10;
  const magnitude = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const n = Math.max(1, Math.ceil(Math.max(...values) / step + 1e-9));
  const counts = Array.from({ length: n }, () => 0);
  for (const v of values) {
    const bin = Math.min(n - 1, Math.floor(v / step));
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  const fmt = (x: number): string => (step < 1 ? x.toFixed(1) : String(Math.round(x)));
  return histogram('cases by latency of ask (ms)', counts.map((_, i) => `${fmt(i * step)}–${fmt((i + 1) * step)}`), [{ name: 'cases', color: '#2f6f9f', counts }]);
}

function confusion(cases: readonly ReportCase[], matrix: EvalReport['metrics']['outcomes']['confusion']): string {
  const cell = (e: Outcome, a: Outcome): string => {
    const n = matrix[e]?.[a] ?? 0;
    const total = cases.filter((c) => c.expect === e).length;
    const alpha = total === 0 || n === 0 ? 0 : 0.15 + 0.6 * (n / total);
    const color = e === a ? `rgba(11,107,43,${alpha.toFixed(2)})` : `rgba(164,38,44,${alpha.toFixed(2)})`;
    return `<td class="num" style="background:${color}">${n}</td>`;
  };
  return `<table class="matrix"><thead><tr><th scope="col">expected (rows) · got (columns)</th>${OUTCOMES.map((a) => `<th scope="col">${esc(OUTCOME_LABEL[a])}</th>`).join('')}<th scope="col">correct</th></tr></thead><tbody>${OUTCOMES.map((e) => {
    const total = cases.filter((c) => c.expect === e).length;
    return `<tr><th scope="row">${esc(OUTCOME_LABEL[e])}</th>${OUTCOMES.map((a) => cell(e, a)).join('')}<td class="num">${total === 0 ? '-' : `${matrix[e]?.[e] ?? 0} / ${total}`}</td></tr>`;
  }).join('')}</tbody></table>`;
}

const clip = (text: string, max = 240): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const score = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : x.toFixed(2));

/**
 * What the console's trace page shows first, embedded in the report so it opens from a file: who asked and as of
 * when, the route, the candidates retrieved, the judge's best units and each answer sentence's support.
 */
function traceSummary(t: Trace): string {
  const head = `<p>Trace <code>${esc(t.trace_id)}</code> (<code>citetrace traces show ${esc(t.trace_id)}</code> prints it in full), asked ${esc(t.created_at)} as ${esc(t.role)}, policies in force on ${esc(t.as_of)}; outcome ${esc(outcomeWithReason(t.outcome, t.reason))}${
    t.scope_decision ? `; route ${esc(t.scope_decision.route.replaceAll('_', ' '))} (decided by ${esc(t.scope_decision.decided_by)})` : ''
  }.</p>`;
  const retrieved =
    t.retrieved.length === 0
      ? '<p>Nothing retrieved.</p>'
      : `<table><thead><tr><th scope="col">label</th><th scope="col">source and version</th><th scope="col">score</th><th scope="col">passage</th></tr></thead><tbody>${t.retrieved
          .map((r) => `<tr><td>${esc(r.label)}</td><td>${esc(r.source_id)} ${esc(r.version ?? '')}</td><td class="num">${score(r.score)}</td><td>${esc(clip(r.text))}</td></tr>`)
          .join('')}</tbody></table>`;
  const decision = t.support_decision;
  const judged =
    decision && 'judge' in decision
      ? `<p>Judge ${esc(decision.judge.model)}, threshold ${score(decision.judge.threshold)}; best units of ${decision.units_total}:</p><table><thead><tr><th scope="col">unit</th><th scope="col">score</th><th scope="col">text</th></tr></thead><tbody>${[...decision.units]
          .sort((a, b) => (b.score ?? -1) - (a.score ?? -1))
          .slice(0, 5)
          .map((u) => `<tr><td>${esc(u.label)}</td><td class="num">${u.score === null ? esc(u.excluded ?? 'excluded') : score(u.score)}</td><td>${esc(clip(u.text))}</td></tr>`)
          .join('')}</tbody></table>`
      : '';
  const sentences =
    t.sentences.length === 0
      ? ''
      : `<p>Answer sentences:</p><ul>${t.sentences.map((s) => `<li>${esc(s.text)} <small>(cites ${esc(s.labels.join(', ') || 'nothing')}; support ${score(s.support)})</small></li>`).join('')}</ul>`;
  return `<details class="trace"><summary>trace</summary>${head}${retrieved}${judged}${sentences}</details>`;
}

function failuresSection(failed: readonly ReportCase[], consoleUrl: string | undefined): string {
  if (failed.length === 0) return '<section id="failures"><h2>Failures: none</h2><p>Every case passed.</p></section>';
  const rows = failed
    .map((c) => {
      const got = `<strong>${esc(outcomeWithReason(c.actual, c.reason))}</strong>${c.trace.answer ? `<br><span class="answer">${esc(c.trace.answer)}</span>` : ''}`;
      const reasons = why(c).map((w) => `<li>${esc(w)}</li>`);
      if (c.trace.detail) reasons.push(`<li class="detail">pipeline: ${esc(c.trace.detail)}</li>`);
      const trace = consoleUrl === undefined ? traceSummary(c.trace) : `<a href="${esc(`${consoleUrl}/console/traces/${c.trace.trace_id}`)}">trace</a>`;
      return `<tr><td><code>${esc(c.id)}</code></td><td>${esc(c.trace.query)}</td><td>${esc(OUTCOME_LABEL[c.expect])}</td><td>${got}</td><td><ul>${reasons.join('')}</ul></td><td>${trace}</td></tr>`;
    })
    .join('\n');
  return `<section id="failures"><h2>Failures (${failed.length})</h2>
<table class="failures"><thead><tr><th scope="col">case</th><th scope="col">question</th><th scope="col">expected</th><th scope="col">got</th><th scope="col">why</th><th scope="col">${consoleUrl === undefined ? 'trace' : 'in the console'}</th></tr></thead><tbody>
${rows}
</tbody></table></section>`;
}

/**
 * The eval report as one self-contained HTML page (no scripts, no external resources): the failures first, then
 * tables and charts per class. With `consoleUrl` (the service the eval's traces are in, e.g. http://127.0.0.1:8080)
 * each failure links to its trace in that console; without it each failure carries its trace's summary, so the
 * file needs nothing else (a link relative to a console would open nothing from a file).
 */
export function renderHtmlReport(report: EvalReport, options: { readonly consoleUrl?: string } = {}): string {
  const m = report.metrics;
  const cases = report.cases;
  const failed = cases.filter((c) => !c.passed);
  const ranks = Object.entries(m.retrieval.rankDistribution)
    .sort(([a], [b]) => (a === 'miss' ? 1 : b === 'miss' ? -1 : Number(a) - Number(b)))
    .map(([rank, n]) => [rank === 'miss' ? 'not retrieved' : `rank ${rank}`, n] as const);
  const failureRows = (Object.keys(FAILURE_LABEL) as (keyof FailureMatrix)[]).map((key) => [FAILURE_LABEL[key], String(m.failures[key].length), m.failures[key].join(', ') || '-']);
  const tags = Object.entries(m.byTag).sort(([a], [b]) => a.localeCompare(b));
  const headline = [
    ['outcome accuracy', pct(m.outcomes.accuracy)],
    ['cases passed', `${cases.length - failed.length} / ${m.cases}`],
    ['unsupported answers', String(m.outcomes.unsupportedAnswers.length)],
    ['wrong abstentions', String(m.outcomes.wrongAbstentions.length)],
    ['recall at 1 / 3 / 5', `${pct(m.retrieval.recallAt['1'])} / ${pct(m.retrieval.recallAt['3'])} / ${pct(m.retrieval.recallAt['5'])}`],
    ['mean reciprocal rank', m.retrieval.mrr.toFixed(3)],
    ['citation precision / recall', `${pct(m.generation.citationPrecision)} / ${pct(m.generation.citationRecall)}`],
    ['citations resolved to their passage', pct(m.generation.citationResolutionRate)],
    ['latency p50 / p95', `${m.latencyMs.p50.toFixed(1)} / ${m.latencyMs.p95.toFixed(1)} ms`],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>citetrace evaluation</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f0f3f6}td.num{text-align:right}.fail{background:#fdecea}.pass{background:#edf7ed}figure{margin:1rem 0}figcaption{font-weight:600}
.headline td:last-child{font-weight:600}#failures h2{color:#a4262c}.failures ul{margin:0;padding-left:1.1rem}.failures .answer{color:#444}.detail{color:#555}
.trace table{font-size:12px}.trace summary{cursor:pointer;color:#2f6f9f}.legend{font-size:12px}.key{margin-right:1rem}.key span{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;vertical-align:middle}
</style></head><body>
<h1>citetrace evaluation: ${m.cases} cases, k = ${m.k}</h1>
<p class="summary">${failed.length === 0 ? 'All cases passed' : `${failed.length} of ${m.cases} cases failed`} · outcome accuracy ${pct(m.outcomes.accuracy)} · unsupported answers ${m.outcomes.unsupportedAnswers.length} · wrong abstentions ${m.outcomes.wrongAbstentions.length}</p>
${failuresSection(failed, options.consoleUrl?.replace(/\/+$/u, ''))}
<h2>Headline</h2>
<table class="headline"><tbody>${headline.map(([k, v]) => `<tr><th scope="row">${esc(k ?? '')}</th><td>${esc(v ?? '')}</td></tr>`).join('')}</tbody></table>
<h2>Outcomes: expected against what the assistant did</h2>
${confusion(cases, m.outcomes.confusion)}
<p>Unsupported answers: ${esc(m.outcomes.unsupportedAnswers.join(', ') || 'none')}. Wrong abstentions: ${esc(m.outcomes.wrongAbstentions.join(', ') || 'none')}.</p>
<h2>Scope routing: expected (rows) against the route taken (columns)</h2>
${table(['expected \\ route', 'in scope', 'emergency', 'crisis', 'clinical', 'other language'], (['out_of_scope', 'in_scope'] as const).map((e) => [e.replaceAll('_', ' '), ...['in_scope', ...ROUTING_REASONS].map((r) => String(m.routing.confusion[e][r] ?? 0))]))}
<p>Expected out of scope but not routed: ${esc(m.routing.notRouted.join(', ') || 'none')}. In scope but routed away: ${esc(m.routing.routedAway.join(', ') || 'none')}.</p>
<h2>Support scores: answered against abstained</h2>
${supportChart(cases)}
<h2>Accuracy by tag</h2>
${tags.length === 0 ? '<p>No case has a tag.</p>' : `${bars('share of cases passed, per tag', tags.map(([tag, v]) => [`${tag} (${v.passed}/${v.cases})`, v.cases === 0 ? 0 : v.passed / v.cases]), pct, 1)}
${table(['tag', 'cases', 'passed', 'accuracy'], tags.map(([tag, v]) => [tag, String(v.cases), String(v.passed), v.cases === 0 ? '-' : pct(v.passed / v.cases)]))}`}
<h2>Latency</h2>
${latencyChart(cases)}
<h2>Failure classes</h2>
<p>Where the pipeline's known weak points showed up; a case can be listed here and still pass (a clarification it was expected to ask).</p>
${table(['failure class', 'cases', 'case ids'], failureRows)}
<h2>Retrieval: rank of the supporting revision</h2>
${ranks.length === 0 ? '<p>No case names a supporting revision.</p>' : bars('cases per rank', ranks)}
<h2>Context budget sweep</h2>
${
  m.sweep.length === 0
    ? '<p>Not run (pass <code>--sweep</code>).</p>'
    : `${bars('citation coverage by k', m.sweep.map((p) => [`k = ${p.k}`, p.citationCoverage]), pct, 1)}
${table(['k', 'accuracy', 'citation coverage', 'unsupported answers', 'p50 ms', 'p95 ms'], m.sweep.map((p) => [String(p.k), pct(p.accuracy), pct(p.citationCoverage), String(p.unsupportedAnswers), p.latencyMs.p50.toFixed(1), p.latencyMs.p95.toFixed(1)]))}
<p>Smallest k meeting the goals: ${m.smallestGoodK === null ? 'none' : String(m.smallestGoodK)}.</p>`
}
<h2>Every case</h2>
<table><thead><tr><th scope="col">case</th><th scope="col">expected</th><th scope="col">got</th><th scope="col">rank</th><th scope="col">question and answer</th><th scope="col">why it failed</th></tr></thead><tbody>
${cases
  .map(
    (c) =>
      `<tr class="${c.passed ? 'pass' : 'fail'}"><td>${esc(c.id)}</td><td>${esc(OUTCOME_LABEL[c.expect])}</td><td>${esc(outcomeWithReason(c.actual, c.reason))}</td><td>${c.supportRank ?? '-'}</td><td><b>${esc(c.trace.query)}</b><br>${esc(c.trace.answer)}</td><td>${esc(why(c).join('; ') || '-')}</td></tr>`,
  )
  .join('\n')}
</tbody></table>
</body></html>
`;
}
