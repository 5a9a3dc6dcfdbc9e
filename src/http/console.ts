import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { KeyStore } from '../auth/index.js';
import { OutcomeSchema, ReasonSchema, RevisionIdSchema, RoleSchema, type Trace } from '../domain/index.js';
import { findingsOf, verifyTraces } from '../eval/index.js';
import { listedQuery } from '../trace/index.js';
import { CONSOLE_COOKIE, CONSOLE_SESSION_MS, requireRole } from './auth.js';
import { revisionPage, sourcesPage } from './console-sources.js';
import { evidencePath, type RevisionsNow } from './console-trace.js';
import type { ServiceContext } from './context.js';
import { esc, page, table, td } from './html.js';
import { problemOf } from './problem.js';

const html = (reply: FastifyReply, body: string): FastifyReply => reply.type('text/html; charset=utf-8').send(body);

/** The revisions in force today for a trace's role, so the trace page can mark the ones replaced since. */
function revisionsNow(ctx: ServiceContext, t: Trace): RevisionsNow {
  const today = ctx.today();
  const { index } = ctx.runtime();
  return { inForce: index.inForce({ role: t.role, asOf: today }), revisions: index.revisions, today };
}

export function registerConsole(app: FastifyInstance, ctx: ServiceContext, keys: KeyStore): void {
  const operator = requireRole(keys, ['operator'], (reply) => reply.redirect('/console/login'));

  app.get('/', (_req, reply) => reply.redirect('/console'));

  app.get('/console/login', (_req, reply) =>
    html(reply, page('Sign in', `<h1>Sign in</h1><form method="post" action="/console/login"><label>Operator API key <input type="password" name="key" autocomplete="off" required></label><button type="submit">Sign in</button></form>`, false)),
  );
  app.post('/console/login', (request, reply) => {
    const key = z.object({ key: z.string() }).safeParse(request.body);
    const found = key.success ? keys.lookup(key.data.key.trim()) : null;
    if (found?.role !== 'operator') return html(reply.code(401), page('Sign in', '<h1>Sign in</h1><p class="fail" role="alert">That is not an operator key.</p><p><a href="/console/login">Try again</a></p>', false));
    // The browser keeps a session token, not the key: it expires, and signing out ends it.
    const expires = new Date(Date.now() + CONSOLE_SESSION_MS);
    const token = keys.openSession(found.id, expires);
    return reply.setCookie(CONSOLE_COOKIE, token, { path: '/console', httpOnly: true, sameSite: 'strict', secure: request.protocol === 'https', expires }).redirect('/console', 303);
  });
  app.post('/console/logout', (request, reply) => {
    const token = request.cookies[CONSOLE_COOKIE];
    if (token !== undefined) keys.closeSession(token);
    return reply.clearCookie(CONSOLE_COOKIE, { path: '/console' }).redirect('/console/login', 303);
  });

  app.get('/console', { preHandler: operator }, async (request, reply) => {
    // The filter form sends "" for "any"; any other value that is not an outcome or a reason is refused, not read as "any".
    const any = z.literal('').transform(() => undefined);
    const parsed = z.object({ outcome: z.union([any, OutcomeSchema]).optional(), reason: z.union([any, ReasonSchema]).optional(), source: z.string().optional() }).safeParse(request.query);
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]?.path[0] ?? 'filter');
      return html(reply.code(400), page('Traces', `<h1>Traces</h1><p class="fail" role="alert">Unknown ${esc(field)} filter; choose one from the list.</p><p><a href="/console">All traces</a></p>`));
    }
    const q = parsed.data;
    const rt = ctx.runtime();
    const [counts, rows] = await Promise.all([
      rt.store.counts(),
      rt.store.list({ limit: 200, ...(q.outcome ? { outcome: q.outcome } : {}), ...(q.reason ? { reason: q.reason } : {}), ...(q.source ? { source: q.source } : {}) }),
    ]);
    const countTable = table(['outcome', 'reason', 'traces'], counts.map((c) => [td(`<a href="/console?outcome=${esc(c.outcome)}">${esc(c.outcome)}</a>`), td(c.reason ? `<a href="/console?reason=${esc(c.reason)}">${esc(c.reason)}</a>` : '-'), td(String(c.count))]));
    const filters = `<form method="get" action="/console"><label>Outcome <select name="outcome"><option value="">any</option>${OutcomeSchema.options.map((o) => `<option${o === q.outcome ? ' selected' : ''}>${o}</option>`).join('')}</select></label><label>Reason <select name="reason"><option value="">any</option>${ReasonSchema.options.map((o) => `<option${o === q.reason ? ' selected' : ''}>${o}</option>`).join('')}</select></label><label>Cited source <input type="text" name="source" value="${esc(q.source ?? '')}"></label><button type="submit">Filter</button></form>`;
    const list = table(
      ['time', 'role', 'outcome', 'reason', 'question'],
      rows.map((row) => {
        const c = row.columns;
        return [td(esc(c.created_at ?? '')), td(esc(c.role ?? '')), td(esc(c.outcome ?? '')), td(esc(c.reason ?? '-')), td(`<a href="/console/traces/${esc(c.trace_id ?? '')}">${esc(listedQuery(row))}</a>`)];
      }),
    );
    return html(reply, page('Traces', `<h1>Traces</h1><h2>Counts by outcome and reason</h2>${countTable}<h2>Filter</h2>${filters}<h2>Newest ${rows.length}</h2>${list}`));
  });

  const traceOr404 = async (id: string, reply: FastifyReply): Promise<Trace | null> => {
    const stored = await ctx.runtime().store.get(id);
    if (stored === null) {
      await html(reply.code(404), page('Not found', `<h1>No trace ${esc(id)}</h1>`));
      return null;
    }
    if (stored.purged) {
      await html(reply.code(410), page('Purged', `<h1>Trace ${esc(id)} was purged</h1><p>Retention removed its question and answer; its hash-chain link remains and still verifies.</p>`));
      return null;
    }
    return stored.trace;
  };

  app.get<{ Params: { id: string } }>('/console/traces/:id', { preHandler: operator }, async (request, reply) => {
    const t = await traceOr404(request.params.id, reply);
    return t === null ? reply : html(reply, page(`Trace ${t.trace_id}`, evidencePath(t, null, revisionsNow(ctx, t))));
  });

  app.post<{ Params: { id: string } }>('/console/traces/:id/verify', { preHandler: operator }, async (request, reply) => {
    const t = await traceOr404(request.params.id, reply);
    if (t === null) return reply;
    const rt = ctx.runtime();
    const report = await verifyTraces({ store: rt.store, index: rt.index, dataDir: ctx.dataDir, traceId: t.trace_id });
    const problems = findingsOf(report);
    return html(reply, page(`Trace ${t.trace_id}`, evidencePath(t, { ok: problems.length === 0, problems }, revisionsNow(ctx, t))));
  });

  app.get<{ Params: { id: string; label: string } }>('/console/traces/:id/passages/:label', { preHandler: operator }, async (request, reply) => {
    const t = await traceOr404(request.params.id, reply);
    if (t === null) return reply;
    const r = t.retrieved.find((x) => x.label === request.params.label);
    if (r === undefined) return html(reply.code(404), page('Not found', `<h1>No passage ${esc(request.params.label)} in this trace</h1>`));
    const body = (await ctx.runtime().index.revisionBody(r.revision)) ?? '';
    const matches = body.slice(r.start, r.end) === r.text;
    const text = `${esc(body.slice(0, r.start))}<mark id="passage">${esc(body.slice(r.start, r.end))}</mark>${esc(body.slice(r.end))}`;
    return html(
      reply,
      page(
        `${r.label} · ${r.source_id}`,
        `<h1>${esc(r.label)}: ${esc(r.source_id)} version ${esc(r.version ?? '-')}</h1><p>Revision <code>${esc(r.revision)}</code>, characters ${r.start} to ${r.end}. ${matches ? '<span class="ok">The stored revision text matches the trace.</span>' : '<span class="fail">The stored revision text differs from the trace.</span>'}</p><p><a href="/console/traces/${esc(t.trace_id)}">Back to the trace</a></p><pre class="revision">${text}</pre>`,
      ),
    );
  });

  app.get('/console/sources', { preHandler: operator }, (_request, reply) => html(reply, page('Sources', sourcesPage(ctx.runtime().index, ctx.today()))));

  app.get<{ Params: { revision: string } }>('/console/revisions/:revision', { preHandler: operator }, async (request, reply) => {
    const id = RevisionIdSchema.safeParse(request.params.revision);
    const found = id.success ? await revisionPage(ctx.runtime().index, id.data, ctx.today()) : null;
    if (found === null) return html(reply.code(404), page('Not found', `<h1>No revision ${esc(request.params.revision)}</h1>`));
    return html(reply, page(found.title, found.body));
  });

  const askForm = (result = ''): string =>
    `<h1>Ask as a role</h1><form method="post" action="/console/ask"><label>Question <input type="text" name="question" required></label><label>Role <select name="role"><option>patient</option><option>staff</option></select></label><label>As of <input type="text" name="as_of" placeholder="YYYY-MM-DD (default today)"></label><button type="submit">Ask</button></form>${result}`;
  app.get('/console/ask', { preHandler: operator }, (_request, reply) => html(reply, page('Ask', askForm())));
  app.post('/console/ask', { preHandler: operator }, async (request, reply) => {
    const form = z.object({ question: z.string(), role: RoleSchema, as_of: z.string().optional() }).safeParse(request.body);
    if (!form.success) return html(reply.code(400), page('Ask', askForm('<p class="fail" role="alert">Give a question and a role.</p>')));
    try {
      const trace = await ctx.ask({ question: form.data.question, role: form.data.role, asOf: form.data.as_of === '' ? undefined : form.data.as_of });
      return await reply.redirect(`/console/traces/${trace.trace_id}`, 303);
    } catch (error) {
      // A question the API refuses (blank, too long, a date that is not one) is shown on the form, as the API's detail says it.
      const refused = problemOf(error);
      if (refused.status >= 500) throw error;
      return html(reply.code(refused.status), page('Ask', askForm(`<p class="fail" role="alert">${esc(refused.detail)}</p>`)));
    }
  });
}
