import type { IsoDate, RevisionId, RevisionMeta } from '../domain/index.js';
import { describeSources, type PolicyIndex, type SourceRevisionView, type SourceView } from '../index-store/index.js';
import { revisionHref } from './console-trace.js';
import { esc, table, td } from './html.js';

/** Where a revision stands on a source's timeline today. */
export type TimelineStatus = 'draft' | 'future' | 'in force' | 'superseded' | 'retired' | 'withdrawn';

export function timelineStatus(s: SourceView, r: SourceRevisionView, today: string): { readonly status: TimelineStatus; readonly note: string } {
  if (r.status === 'draft') return { status: 'draft', note: 'never used' };
  if (r.status === 'retired') return { status: 'retired', note: 'never used' };
  const label = r.version ?? r.revision;
  const roles = (['patient', 'staff'] as const).filter((role) => s.in_force[role] === label);
  if (roles.length > 0) return { status: 'in force', note: roles.length === 2 ? 'for patients and staff' : `for ${roles[0] === 'patient' ? 'patients' : 'staff'} only` };
  if (r.effective_date > today) return { status: 'future', note: `takes effect ${r.effective_date}` };
  const replaced = s.revisions.some((o) => o !== r && o.status === 'approved' && o.effective_date >= r.effective_date && o.effective_date <= today);
  if (replaced) return { status: 'superseded', note: 'a later revision is in force' };
  return { status: 'withdrawn', note: r.present ? 'not in force for any role' : 'its file was removed' };
}

const badge = (status: TimelineStatus): string => `<span class="badge ${status.replace(' ', '-')}">${esc(status)}</span>`;

/** Every source as a revision timeline, oldest first, each revision with its status today and a link to its full text. */
export function sourcesPage(index: PolicyIndex, today: IsoDate): string {
  const sources = describeSources(index, today);
  const rows = sources.flatMap((s) =>
    [...s.revisions].reverse().map((r, i) => {
      const { status, note } = timelineStatus(s, r, today);
      return [
        i === 0
          ? `<th scope="rowgroup" rowspan="${s.revisions.length}" id="${esc(s.source_id)}"><strong>${esc(s.source_id)}</strong><br><small>${esc(s.title)}</small>${s.withdrawn ? '<br>(withdrawn)' : ''}<br><small>owner ${esc(s.owner ?? '-')}</small></th>`
          : '',
        td(`${badge(status)} <small>${esc(note)}</small>`, 'status'),
        td(esc(r.version ?? '-')),
        td(esc(r.effective_date)),
        // Review overdue matters only for what is or will be used; a superseded revision's old date is history.
        td(r.review_by ? `${esc(r.review_by)}${r.stale && (status === 'in force' || status === 'future') ? ' <span class="stale">stale: review overdue</span>' : ''}` : '-'),
        td(esc(r.audience.join(', '))),
        td(`<code>${esc(r.path)}</code>${r.present ? '' : ' <small>(history only)</small>'}`),
        td(`<a href="${revisionHref(r.revision)}">full text</a>`),
      ];
    }),
  );
  return `<h1>Sources (${sources.length})</h1>
<p>Each source's revisions from oldest to newest, with where each stands on ${esc(today)}: draft, future, in force, superseded, retired or withdrawn.</p>
${table(['source', 'status', 'version', 'effective', 'review by', 'audience', 'file', 'revision'], rows)}`;
}

/** One revision's full text with its place on its source's timeline. */
export async function revisionPage(index: PolicyIndex, revision: RevisionId, today: IsoDate): Promise<{ readonly title: string; readonly body: string } | null> {
  const meta: RevisionMeta | undefined = index.revisions.get(revision);
  if (meta === undefined) return null;
  const source = describeSources(index, today).find((s) => s.source_id === meta.sourceId);
  const view = source?.revisions.find((r) => r.revision === revision);
  const status = source !== undefined && view !== undefined ? timelineStatus(source, view, today) : null;
  const text = (await index.revisionBody(revision)) ?? '';
  return {
    title: `${meta.sourceId} ${meta.version ?? ''}`,
    body: `<h1>${esc(meta.sourceId)} version ${esc(meta.version ?? '-')}</h1>
<p>${status === null ? '' : `${badge(status.status)} <small>${esc(status.note)}</small> · `}${esc(meta.title)} · effective ${esc(meta.effectiveDate)} · <code>${esc(meta.path)}</code></p>
<p>Revision <code>${esc(revision)}</code></p>
<p><a href="/console/sources#${esc(meta.sourceId)}">The source's timeline</a></p>
<pre class="revision">${esc(text)}</pre>`,
  };
}
