import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareTraces, replayTraces, verifyTraces } from '../src/eval/index.js';
import type { Runtime } from '../src/main.js';
import { createSqliteTraceStore } from '../src/trace/index.js';
import { demoRuntime, tempDir } from './helpers.js';

const QUESTIONS = [
  'Until what time can I get blood drawn at the Harbor lab?',
  'How much is the no-show fee?',
  'What are your hours?',
  'Can I pay my bill in bitcoin?',
  'I think I am having a stroke',
  'How far ahead can I reschedule in the portal?',
];

/** Alter a stored row the way an attacker with file access would: around the append-only triggers. */
function tamper(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  const triggers = db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'traces'").all();
  for (const t of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'traces'").all()) db.exec(`DROP TRIGGER ${t.name}`);
  db.prepare(sql).run(...params);
  for (const t of triggers) db.exec(t.sql);
  db.close();
}

describe('verify and replay', () => {
  let runtime: Runtime;
  let dataDir: string;
  const ids: string[] = [];

  beforeAll(async () => {
    ({ runtime, dataDir } = await demoRuntime());
    for (const question of QUESTIONS) ids.push((await runtime.assistant.ask({ question, role: 'patient' })).trace_id);
  });
  afterAll(async () => runtime.close());

  const verifyAll = () => verifyTraces({ store: runtime.store, index: runtime.index, dataDir });

  it('verifies untouched traces end to end', async () => {
    const report = await verifyAll();
    expect(report.failed).toEqual([]);
    expect(report.checked).toBe(QUESTIONS.length);
    const one = await verifyTraces({ store: runtime.store, index: runtime.index, dataDir, traceId: ids[1] });
    expect(one).toMatchObject({ checked: 1, failed: [] });
  });

  it('replaying an unchanged system reproduces every retrieved revision and outcome', async () => {
    const scratch = createSqliteTraceStore({ file: ':memory:' });
    const report = await replayTraces({ store: runtime.store, assistant: runtime.assistantWith({ store: scratch }) });
    await scratch.close();
    expect(report).toMatchObject({ replayed: QUESTIONS.length, unchanged: QUESTIONS.length, differences: [] });
    expect((await runtime.store.list({ limit: 100 })).length).toBe(QUESTIONS.length);
  });

  it('replay reports a changed configuration as changed retrieval and outcome', async () => {
    const scratch = createSqliteTraceStore({ file: ':memory:' });
    const report = await replayTraces({ store: runtime.store, assistant: runtime.assistantWith({ store: scratch, k: 1, retrievalMode: 'fts' }) });
    await scratch.close();
    expect(report.differences.length).toBeGreaterThan(0);
  });

  it('replay names a changed judge bar below the k best-retrieved, a changed retriever, a changed injection detector and a changed second scope classifier', async () => {
    const before = (await runtime.store.get(ids[0] ?? ''))?.trace;
    const decision = before?.support_decision;
    if (before === undefined || decision === null || decision === undefined || !('judge' in decision)) throw new Error('no judged trace');
    const after = { ...before, support_decision: { ...decision, judge: { ...decision.judge, threshold_beyond_k: 0.9 } } };
    expect(compareTraces(before, after)).toEqual([`judge bar below the k best-retrieved ${decision.judge.threshold_beyond_k ?? ''} -> 0.9`]);
    expect(compareTraces(before, before)).toEqual([]);
    const lanceBm25 = before.config.retriever.replace(/fts=[^,]+/u, 'fts=lancedb-bm25');
    expect(lanceBm25).not.toBe(before.config.retriever);
    expect(compareTraces({ ...before, config: { ...before.config, retriever: lanceBm25 } }, before)).toEqual([`retriever ${lanceBm25} -> ${before.config.retriever}`]);
    // A trace made under an earlier injection detector (session 20's manifest, before its answer threshold) names the change.
    const detector = decision.injection;
    if (detector === undefined) throw new Error('no detector recorded');
    const earlier = { ...before, support_decision: { ...decision, injection: { model: detector.model, sha256: 'dc9d727f24d24d758452dadf0d623f91e222ff699923e009346496e3b7a76501', threshold: 0.8 } } };
    expect(compareTraces(earlier, before)).toEqual([`injection detector dc9d727f24d2 -> ${detector.sha256.slice(0, 12)}`]);
    // A trace routed before the second scope classifier (session 26) names it, as does a change of what it may add.
    const scope = before.scope_decision;
    if (scope?.second === undefined) throw new Error('no second scope reading recorded');
    const { second, ...withoutSecond } = scope;
    expect(compareTraces({ ...before, scope_decision: withoutSecond }, before)).toEqual([`second scope classifier none -> ${second.sha256.slice(0, 12)} (adds emergency, crisis)`]);
    expect(compareTraces(before, { ...before, scope_decision: { ...scope, second: { ...second, adds: ['emergency'] } } })).toEqual([
      `second scope classifier ${second.sha256.slice(0, 12)} (adds emergency, crisis) -> ${second.sha256.slice(0, 12)} (adds emergency)`,
    ]);
  });

  it('catches a stored passage copy altered behind the triggers, naming the trace', async () => {
    const file = runtime.store.id.replace(/^sqlite:/u, '');
    const victim = (await runtime.store.get(ids[0] ?? ''))!;
    const altered = victim.body.replaceAll('7 am to 4 pm', '7 am to 9 pm');
    expect(altered).not.toBe(victim.body);
    tamper(file, 'UPDATE traces SET body = ? WHERE seq = ?', altered, victim.seq);
    const report = await verifyAll();
    const failure = report.failed.find((f) => f.traceId === victim.trace.trace_id);
    expect(failure?.problems.join('\n')).toMatch(/stored record does not match its digest/u);
    expect(failure?.problems.join('\n')).toMatch(/passage text differs from revision/u);
    expect(report.firstBrokenLink?.seq).toBe(victim.seq);
  });

  it.each(['body', 'body_sha256', 'prev_hash', 'hash', 'trace_id', 'created_at', 'outcome', 'reason', 'role', 'as_of'])(
    'catches one changed byte in the stored %s, at that trace',
    async (column) => {
      const file = runtime.store.id.replace(/^sqlite:/u, '');
      const copy = path.join(await tempDir(), 'traces.sqlite');
      const source = new Database(file, { readonly: true });
      await source.backup(copy);
      source.close();
      const victim = (await runtime.store.get(ids[4] ?? ''))!;
      const db = new Database(copy);
      const value = String(db.prepare(`SELECT ${column} AS v FROM traces WHERE seq = ?`).pluck().get(victim.seq));
      db.close();
      const at = Math.floor(value.length / 2);
      const changed = `${value.slice(0, at)}${value[at] === 'a' ? 'b' : 'a'}${value.slice(at + 1)}`;
      tamper(copy, `UPDATE traces SET ${column} = ? WHERE seq = ?`, changed, victim.seq);
      const store = createSqliteTraceStore({ file: copy });
      try {
        const report = await verifyTraces({ store, index: runtime.index, dataDir });
        expect(report.failed.map((f) => f.seq)).toContain(victim.seq);
      } finally {
        await store.close();
      }
    },
  );

  it('catches a deleted trace at the next link', async () => {
    const file = runtime.store.id.replace(/^sqlite:/u, '');
    const victim = (await runtime.store.get(ids[3] ?? ''))!;
    tamper(file, 'DELETE FROM traces WHERE seq = ?', victim.seq);
    const report = await verifyAll();
    expect(report.failed.some((f) => f.seq === victim.seq + 1 && f.problems.some((p) => /prev_hash does not match/u.test(p)))).toBe(true);
    expect(path.isAbsolute(file)).toBe(true);
  });
});
