import { SUPPORT_THRESHOLD } from '../cite/index.js';
import type { RevisionId, RevisionMeta, SourceId, Trace } from '../domain/index.js';
import { contentTerms } from '../text/index.js';
import { esc, table, td } from './html.js';

const short = (revision: string): string => `${revision.slice(0, 19)}…`;
const fixed = (x: number, digits = 3): string => x.toFixed(digits);
export const revisionHref = (revision: string): string => `/console/revisions/${encodeURIComponent(revision)}`;

/** What the index holds today for each retrieved source, so a trace can show which of its revisions were replaced since. */
export interface RevisionsNow {
  /** The revision in force today for the trace's role, per source (absent: none). */
  readonly inForce: ReadonlyMap<SourceId, RevisionMeta>;
  /** Every stored revision, to tell a revision not yet in force from one replaced. */
  readonly revisions: ReadonlyMap<RevisionId, RevisionMeta>;
  readonly today: string;
}

type Retrieved = Trace['retrieved'][number];

/** Whether the trace's revision is still the one in force today for the trace's role. */
function nowCell(r: Retrieved, now: RevisionsNow | null): string {
  if (now === null) return td('-');
  const current = now.inForce.get(r.source_id);
  if (current?.revision === r.revision) return td('in force today');
  const own = now.revisions.get(r.revision);
  if (own !== undefined && own.effectiveDate > now.today) return td(`not yet in force (takes effect ${esc(own.effectiveDate)})`);
  if (current === undefined) return td(`<span class="stale" title="nothing of this source is in force on ${esc(now.today)}">stale: no longer in force</span>`);
  return td(`<span class="stale">stale: replaced by <a href="${revisionHref(current.revision)}">version ${esc(current.version ?? short(current.revision))}</a></span>`);
}

/** What the question was understood to ask (periods, entity values, every value of a type, a named person, whose hours), when it reached retrieval. */
function understood(t: Trace): string {
  const a = t.question_analysis;
  if (a === null || a === undefined) return '';
  const parts = [
    ...a.periods.map((p) => `period <strong>${esc(p.text)}</strong> (${esc(p.from)} to ${esc(p.to)})`),
    ...(a.habitual_days ?? []).map((d) => `every <strong>${esc(d)}</strong>, as a habit`),
    ...Object.entries(a.entities).flatMap(([type, values]) => values.map((v) => `${esc(type)} <strong>${esc(v)}</strong>`)),
    ...(a.every ?? []).map((type) => `every <strong>${esc(type)}</strong>`),
    ...(a.names_person ? ['a named person'] : []),
    ...(a.acts_for == null ? [] : [`acting through <strong>${esc(a.acts_for)}</strong>`]),
    ...(a.acted_for_age == null ? [] : [`about <strong>${{ adult: 'an adult', grown_child: 'a grown son or daughter', minor: 'a minor' }[a.acted_for_age]}</strong>`]),
    ...(a.asks_place_hours === true ? ['when a place is <strong>open</strong>'] : []),
  ];
  return `<p>Understood: ${parts.length === 0 ? 'no period, entity or person named' : parts.join(' · ')}</p>`;
}

function scopeSection(t: Trace): string {
  const d = t.scope_decision;
  if (d === undefined) return '<p>Not recorded (this trace was stored before scope decisions were traced).</p>';
  const by = {
    floor: `the safety floor, phrase <q>${esc(d.floor_phrase ?? '')}</q>`,
    model: 'the scope classifier',
    second_model: 'the second scope classifier, which can only add an emergency or crisis routing',
    language: 'the language identifier: the assistant cannot read this message',
    phatic: 'the grammar of greetings, thanks and acknowledgements: the message asks nothing',
    none: 'no rule: no floor phrase matched, the message reads as English and the classifier is below both thresholds',
  }[d.decided_by];
  const language =
    d.language === undefined
      ? ''
      : `<p>Language <strong>${esc(d.language.code ?? 'too short to read')}</strong>${d.language.reliable ? '' : ' (not sure which)'}${d.language.clause === null ? '' : ` in the clause <q>${esc(d.language.clause)}</q>`} · identifier <code>${esc(d.language.model)}</code> · sha256 <code title="${esc(d.language.sha256)}">${esc(d.language.sha256.slice(0, 16))}…</code> · letters read at least ${d.language.min_letters.whole} (message), ${d.language.min_letters.clause} (clause) · a clause out-scores English by ${fixed(d.language.clause_margin, 2)}</p>`;
  const score = (name: string, value: number, threshold: number | null): [string, string, string] => [
    td(esc(name)),
    td(fixed(value)),
    td(threshold === null ? '-' : `${value >= threshold ? '≥' : '<'} ${fixed(threshold, 2)}`),
  ];
  return `<p>Route <strong class="route">${esc(d.route.replace('_', ' '))}</strong>, decided by ${by}, over ${d.segments} segment${d.segments === 1 ? '' : 's'}.</p>
${language}
<p>Model <code>${esc(d.model)}</code> · sha256 <code title="${esc(d.sha256)}">${esc(d.sha256.slice(0, 16))}…</code> · thresholds: urgent ${fixed(d.thresholds.urgent, 2)}, clinical ${fixed(d.thresholds.clinical, 2)}</p>
${table(
  ['score', 'value', 'against threshold'],
  [
    score('urgent (emergency + crisis, most urgent segment)', d.urgent, d.thresholds.urgent),
    score('emergency', d.scores.emergency, null),
    score('crisis', d.scores.crisis, null),
    score('clinical (whole message)', d.scores.clinical, d.thresholds.clinical),
    score('administrative', d.scores.admin, null),
  ],
)}${
    d.second === undefined
      ? ''
      : `
<p>Second model (can only add an emergency or crisis routing) <code>${esc(d.second.model)}</code> · sha256 <code title="${esc(d.second.sha256)}">${esc(d.second.sha256.slice(0, 16))}…</code></p>
${table(['score', 'value', 'against threshold'], [score('urgent (emergency + crisis, most urgent segment)', d.second.urgent, d.second.threshold), score('emergency', d.second.scores.emergency, null), score('crisis', d.second.scores.crisis, null)])}`
  }`;
}

function supportSection(t: Trace): string {
  const d = t.support_decision;
  if (t.outcome === 'out_of_scope' && t.retrieved.length === 0) return '<p>Not reached: the question was routed before retrieval.</p>';
  if (d === undefined) return '<p>Not recorded (this trace was stored before support decisions were traced).</p>';
  if (d === null) return '<p>No support decision: nothing was offered to decide on.</p>';
  if (!('judge' in d)) {
    return `<p>Lexical support decision (stored before the judge): focus ${d.focus.map((f) => `<code>${esc(f)}</code>`).join(' ')}, threshold ${fixed(d.min_coverage, 2)}.</p>`;
  }
  const offered = new Set(t.retrieved.filter((r) => r.offered).map((r) => r.label));
  const rows = d.units.map((u) => [
    td(`<a href="/console/traces/${esc(t.trace_id)}/passages/${esc(u.label)}">${esc(u.label)}</a>${offered.has(u.label) ? '' : ' <small>(not offered)</small>'}`),
    td(esc(u.kind)),
    td(esc(u.text)),
    td(`${u.start}–${u.end}`),
    td(u.score === null ? '-' : `${fixed(u.score)}${u.neutral_score === undefined ? '' : ` <small>(neutral reading ${fixed(u.neutral_score)})</small>`}`),
    u.excluded !== undefined ? td(`excluded: ${esc(u.excluded)}`) : u.score !== null && u.score >= d.judge.threshold ? td('answers', 'ok') : td('does not answer'),
  ]);
  return `<p>Judge: <code>${esc(d.judge.model)}</code> sha256 <code>${esc(d.judge.sha256.slice(0, 16))}…</code>, threshold ${fixed(d.judge.threshold, 2)}${beyondK(d.judge.threshold_beyond_k, t.config.k)}; it read ${d.units.length} of ${d.units_total} units of the retrieved passages.${d.neutral_question === undefined ? '' : ` Units about no site were also read with the site said neutrally: <q>${esc(d.neutral_question)}</q> (a unit keeps the higher score).`}</p>
${table(['label', 'unit', 'text', 'span', 'score', 'decision'], rows)}`;
}

/** The bar a passage ranked below the k best-retrieved had to reach to be offered, as the console words it. */
function beyondK(threshold: number | undefined, k: number): string {
  if (threshold === undefined) return '';
  return threshold >= 1 ? ` (only the ${k} best-retrieved passages may be offered)` : ` (${fixed(threshold, 2)} for a passage ranked below the ${k} best-retrieved to be offered)`;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** A cited passage with the words it shares with the sentence marked (stemmed content words, as the support check compares them). */
function markShared(text: string, terms: ReadonlySet<string>): string {
  let out = '';
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    const term = contentTerms(m[0])[0];
    out += esc(text.slice(at, m.index));
    out += term !== undefined && terms.has(term) ? `<mark>${esc(m[0])}</mark>` : esc(m[0]);
    at = m.index + m[0].length;
  }
  return out + esc(text.slice(at));
}

/** The sentence's words no cited passage text contains (titles and headings, which the check also reads, not counted). */
function notFound(sentence: string, cited: readonly Retrieved[]): string[] {
  const available = new Set(cited.flatMap((r) => contentTerms(r.text)));
  const plain = sentence.replace(/\[S\d+\]/gu, '');
  return [...new Set([...plain.matchAll(WORD)].map((m) => m[0]).filter((w) => {
    const term = contentTerms(w)[0];
    return term !== undefined && !available.has(term);
  }))];
}

function sentenceList(t: Trace): string {
  if (t.sentences.length === 0) return `<p>${esc(t.answer)}</p>`;
  const link = (label: string): string => `<a href="/console/traces/${esc(t.trace_id)}/passages/${esc(label)}">${esc(label)}</a>`;
  const rows = t.sentences.map((s, i) => {
    const text = esc(s.text).replace(/\[(S\d+)\]/gu, (_m, label: string) => `[${link(label)}]`);
    const verdict =
      s.support === undefined ? td('not scored') : s.support >= SUPPORT_THRESHOLD ? td('supported', 'ok') : td('unsupported', 'fail');
    const cited = t.retrieved.filter((r) => s.labels.includes(r.label));
    const terms = new Set(contentTerms(s.text.replace(/\[S\d+\]/gu, '')));
    const missing = notFound(s.text, cited);
    const spans =
      cited.length === 0
        ? ''
        : `<details><summary>matched spans${missing.length === 0 ? '' : `; not in the cited text: ${missing.map(esc).join(', ')}`}</summary>${cited.map((r) => `<p class="passage"><b>${esc(r.label)}</b> ${markShared(r.text, terms)}</p>`).join('')}</details>`;
    return [
      td(String(i + 1)),
      `<td class="sentence">${text}${spans}</td>`,
      td(s.labels.map(link).join(', ') || '-'),
      td(s.support === undefined ? '-' : fixed(s.support, 2)),
      td(fixed(SUPPORT_THRESHOLD, 2)),
      verdict,
    ];
  });
  return `<p>Checker: lexical support (share of the sentence's content words its cited passages state), no model; threshold ${fixed(SUPPORT_THRESHOLD, 2)} as configured now.</p>
${table(['#', 'sentence', 'cites', 'support', 'threshold', 'decision'], rows)}`;
}

/** One trace as its evidence path, top to bottom, as the pipeline ran it. */
export function evidencePath(t: Trace, verified: { ok: boolean; problems: readonly string[] } | null, now: RevisionsNow | null): string {
  const cited = new Set(t.citations.map((c) => c.label));
  const candidates = table(
    ['label', 'rank', 'score', 'vector', 'BM25', 'day', 'support', 'source', 'version', 'revision', 'span', 'status', 'revision now'],
    t.retrieved.map((r) => [
      td(`<a href="/console/traces/${esc(t.trace_id)}/passages/${esc(r.label)}">${esc(r.label)}</a>`),
      td(String(r.rank)),
      td(r.score.toFixed(4)),
      td(r.components.vector ? `${r.components.vector.score.toFixed(3)} (#${r.components.vector.rank})` : '-'),
      td(r.components.fts ? `${r.components.fts.score.toFixed(2)} (#${r.components.fts.rank})` : '-'),
      td(r.components.day ? `states a day asked (#${r.components.day.rank})` : '-'),
      td(r.judged !== undefined ? fixed(r.judged) : r.coverage !== undefined ? `${fixed(r.coverage)} (lexical)` : '-'),
      td(esc(r.source_id)),
      td(esc(r.version ?? '-')),
      td(`<a href="${revisionHref(r.revision)}"><code>${esc(short(r.revision))}</code></a>`),
      td(`${r.start}-${r.end}`),
      td(cited.has(r.label) ? 'cited' : r.offered ? 'offered, not cited' : 'considered', cited.has(r.label) ? 'cited' : ''),
      nowCell(r, now),
    ]),
  );
  const verify = verified === null ? '' : verified.ok ? '<p class="ok" role="status">Verified: the evidence path is intact.</p>' : `<div class="fail" role="status">Verification failed:<ul>${verified.problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul></div>`;
  return `<h1>Trace ${esc(t.trace_id)}</h1>
<section class="step"><h2>1. Question</h2><p><q>${esc(t.query)}</q></p><p>Normalized: <code>${esc(t.normalized_query)}</code></p>${understood(t)}<p>Role <strong>${esc(t.role)}</strong> · as of <strong>${esc(t.as_of)}</strong> · ${esc(t.created_at)}</p></section>
<section class="step" id="scope"><h2>2. Scope decision</h2>${scopeSection(t)}</section>
<section class="step"><h2>3. Retrieved candidates (${t.retrieved.length})</h2>${t.retrieved.length === 0 ? '<p>None: routed before retrieval.</p>' : candidates}</section>
<section class="step" id="support"><h2>4. Support decision</h2>${supportSection(t)}</section>
<section class="step" id="answer"><h2>5. Answer, sentence by sentence</h2>${sentenceList(t)}${t.rejected.map((r) => `<p>Rejected draft: <q>${esc(r.text)}</q> (${esc(r.detail)})</p>`).join('')}</section>
<section class="step"><h2>6. Outcome</h2><p><strong>${esc(t.outcome)}</strong>${t.reason ? ` · reason <strong>${esc(t.reason)}</strong>` : ''}</p>${t.detail ? `<p>${esc(t.detail)}</p>` : ''}</section>
<section class="step"><h2>7. Configuration</h2>${table(['setting', 'value'], Object.entries(t.config).map(([k, v]) => [td(esc(k)), td(`<code>${esc(String(v))}</code>`)]))}${t.otel_trace_id ? `<p>OpenTelemetry trace <code>${esc(t.otel_trace_id)}</code></p>` : ''}</section>
<form method="post" action="/console/traces/${esc(t.trace_id)}/verify"><button type="submit">Verify this trace</button></form>${verify}`;
}
