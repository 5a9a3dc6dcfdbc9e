import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findingsOf, verifyTraces, type VerifyReport } from '../src/eval/index.js';
import type { Runtime } from '../src/main.js';
import type { Trace } from '../src/domain/index.js';
import { bodyDigest, canonicalJson, chainHash, createSqliteTraceStore, GENESIS_HASH, INDEXED_COLUMNS, SQLITE_MIGRATIONS, tombstoneOf, type IndexedColumn } from '../src/trace/index.js';
import { demoRuntime, tempDir } from './helpers.js';

/**
 * The tamper suite (issue 17), SQLite: every attack an attacker with write access to the trace
 * database would try is either refused by the database itself or detected by verify, on a real
 * file; an untouched store raises no alarm.
 */

const QUESTIONS = ['Until what time can I get blood drawn at the Harbor lab?', 'How much is the no-show fee?', 'What are your hours?', 'I think I am having a stroke'];

let runtime: Runtime;
let dataDir: string;
let pristine: string;
const asked: Trace[] = [];

beforeAll(async () => {
  ({ runtime, dataDir } = await demoRuntime());
  for (const question of QUESTIONS) asked.push(await runtime.assistant.ask({ question, role: 'patient' }));
  // The same traces an hour apart, and the first purged legitimately: a recorded purge whose tombstone must keep verifying.
  pristine = path.join(await tempDir(), 'traces.sqlite');
  const store = createSqliteTraceStore({ file: pristine });
  for (const [i, trace] of asked.entries()) await store.append({ ...trace, created_at: `2026-12-02T0${i}:00:00.000Z` });
  await store.purge({ before: '2026-12-02T00:30:00.000Z', now: new Date('2026-12-02T13:00:00.000Z') });
  await store.close();
});
afterAll(async () => runtime.close());

/** A private copy of the store, as an attacker would find it. */
async function copy(): Promise<string> {
  const file = path.join(await tempDir(), 'traces.sqlite');
  await copyFile(pristine, file);
  return file;
}

function sql(file: string, work: (db: Database.Database) => void): void {
  const db = new Database(file);
  try {
    work(db);
  } finally {
    db.close();
  }
}

/** Change rows around every trigger on the table, then put the triggers back exactly: only the data differs. */
function behindTriggers(file: string, statements: readonly string[]): void {
  sql(file, (db) => {
    const triggers = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all();
    for (const t of triggers) db.exec(`DROP TRIGGER ${t.name}`);
    for (const s of statements) db.exec(s);
    for (const t of triggers) db.exec(t.sql);
  });
}

/** Swap the rowids of two entries of the trace_id index in the file: the index then points trace #2's id at #3 and back. */
function swapIndexEntries(file: string): void {
  let ids: string[] = [];
  let page = 0;
  let pageSize = 0;
  sql(file, (db) => {
    ids = [2, 3].map((seq) => db.prepare<[number], { id: string }>('SELECT trace_id AS id FROM traces WHERE seq = ?').get(seq)?.id ?? '');
    page = db.prepare<[], { p: number }>("SELECT rootpage AS p FROM sqlite_master WHERE name = 'sqlite_autoindex_traces_1'").get()?.p ?? 0;
    pageSize = Number(db.pragma('page_size', { simple: true }));
  });
  const bytes = readFileSync(file);
  const start = (page - 1) * pageSize;
  // An index record is (trace_id, rowid): the rowid's byte follows the 36-character id.
  const [a, b] = ids.map((id) => {
    const at = bytes.subarray(start, start + pageSize).indexOf(id);
    if (id === '' || at < 0) throw new Error(`index entry ${id} not found`);
    return start + at + id.length;
  }) as [number, number];
  [bytes[a], bytes[b]] = [bytes[b] ?? 0, bytes[a] ?? 0];
  writeFileSync(file, bytes);
}

async function verify(file: string): Promise<VerifyReport> {
  const store = createSqliteTraceStore({ file, readonly: true });
  try {
    return await verifyTraces({ store, index: runtime.index, dataDir });
  } finally {
    await store.close();
  }
}

const row = (file: string, seq: number): Record<string, unknown> => {
  let found: Record<string, unknown> = {};
  sql(file, (db) => {
    found = db.prepare<[number], Record<string, unknown>>('SELECT * FROM traces WHERE seq = ?').get(seq) ?? {};
  });
  return found;
};

describe('the SQLite trace store refuses every mutation but a recorded purge', () => {
  const live = 2;
  const tombstone = (purgedAt: string): string =>
    `json_object('as_of', as_of, 'created_at', created_at, 'outcome', outcome, 'purged', json('true'), 'purged_at', '${purgedAt}', 'reason', reason, 'role', role, 'trace_id', trace_id)`;
  const columns = 'trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash';
  const attacks: [string, string][] = [
    ['UPDATE of a body', `UPDATE traces SET body = replace(body, 'pm', 'am') WHERE seq = ${live}`],
    ['UPDATE of an outcome', `UPDATE traces SET outcome = 'answer' WHERE seq = ${live}`],
    ['UPDATE of a body to something that is not JSON', `UPDATE traces SET body = 'x' WHERE seq = ${live}`],
    ['a purge tombstone written without a recorded purge', `UPDATE traces SET body = ${tombstone('2026-12-02T14:00:00.000Z')} WHERE seq = ${live}`],
    ['a tombstone naming the recorded purge for a trace after its cutoff', `UPDATE traces SET body = ${tombstone('2026-12-02T13:00:00.000Z')} WHERE seq = ${live}`],
    ['UPDATE of a purged record', `UPDATE traces SET body = body || ' ' WHERE seq = 1`],
    ['DELETE', `DELETE FROM traces WHERE seq = ${live}`],
    ['DELETE of every row', 'DELETE FROM traces'],
    ['REPLACE INTO at an existing seq', `REPLACE INTO traces (seq, ${columns}) SELECT seq, ${columns.replace('outcome', "'answer'")} FROM traces WHERE seq = ${live}`],
    ['INSERT OR REPLACE of an existing trace id', `INSERT OR REPLACE INTO traces (${columns}) SELECT trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, (SELECT hash FROM traces ORDER BY seq DESC LIMIT 1), 'sha256:x' || hash FROM traces WHERE seq = ${live}`],
    ['an upsert', `INSERT INTO traces (seq, ${columns}) SELECT seq, ${columns} FROM traces WHERE seq = ${live} ON CONFLICT(seq) DO UPDATE SET outcome = 'answer'`],
    ['an INSERT that does not extend the chain head', `INSERT INTO traces (${columns}) SELECT lower(hex(randomblob(16))), created_at, outcome, reason, role, as_of, body, body_sha256, '${GENESIS_HASH}', 'sha256:new' FROM traces WHERE seq = ${live}`],
    ['UPDATE of a purge record', "UPDATE purges SET before = '2099-01-01T00:00:00.000Z'"],
    ['DELETE of a purge record', 'DELETE FROM purges'],
    ['REPLACE INTO purges', "REPLACE INTO purges (id, purged_at, before, traces) VALUES (1, '2026-12-02T13:00:00.000Z', '2099-01-01T00:00:00.000Z', 1)"],
    // Audit finding 2: a fabricated trace outside the chain's numbering, linked to the head so every other guard passes.
    ...[-5, -1, 0, QUESTIONS.length + 2].map((seq): [string, string] => [
      `an INSERT at seq ${seq} (not the next positive sequence number)`,
      `INSERT INTO traces (seq, ${columns}) SELECT ${seq}, lower(hex(randomblob(16))), created_at, outcome, reason, role, as_of, body, body_sha256, (SELECT hash FROM traces ORDER BY seq DESC LIMIT 1), 'sha256:fab' FROM traces WHERE seq = ${live}`,
    ]),
  ];

  it.each(attacks)('refuses %s', async (_name, statement) => {
    const file = await copy();
    const before = row(file, live);
    expect(() => { sql(file, (db) => db.exec(statement)); }).toThrow(/append-only/u);
    expect(row(file, live)).toEqual(before);
    expect(findingsOf(await verify(file))).toEqual([]);
  });

  it('admits the purge path, which records itself first and verifies', async () => {
    const file = await copy();
    const store = createSqliteTraceStore({ file });
    expect(await store.purge({ before: '2099-01-01T00:00:00.000Z', now: new Date('2026-12-03T00:00:00.000Z') })).toEqual({ purged: QUESTIONS.length - 1 });
    expect((await store.purges()).map((p) => p.traces)).toEqual([1, QUESTIONS.length - 1]);
    await store.close();
    const report = await verify(file);
    expect(findingsOf(report)).toEqual([]);
    expect(report.purged).toBe(QUESTIONS.length);
  });

  it('raises no alarm on the untouched store, and verifying writes nothing', async () => {
    const file = await copy();
    const bytes = await readFile(file);
    const report = await verify(file);
    expect(findingsOf(report)).toEqual([]);
    expect(report).toMatchObject({ checked: QUESTIONS.length, purged: 1, failed: [] });
    expect((await readFile(file)).equals(bytes)).toBe(true);
    // Minor audit finding: no -wal or -shm companion is created in the data folder.
    expect(['-wal', '-shm'].filter((suffix) => existsSync(`${file}${suffix}`))).toEqual([]);
  });

  it('migrates a store written before migration 4 (seq guard, tombstone digests), which keeps verifying, old purge included', async () => {
    const file = path.join(await tempDir(), 'traces.sqlite');
    const db = new Database(file);
    SQLITE_MIGRATIONS.slice(0, 3).forEach((s) => db.exec(s));
    db.pragma('user_version = 3');
    // Appends and a purge as the code of migration 3 wrote them: seq from AUTOINCREMENT, a purge record without a digest.
    const insert = db.prepare('INSERT INTO traces (trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash) VALUES (?,?,?,?,?,?,?,?,?,?)');
    let head = GENESIS_HASH;
    for (const [i, t] of asked.slice(0, 2).entries()) {
      const trace = { ...t, created_at: `2026-11-0${i + 1}T00:00:00.000Z` };
      const body = canonicalJson(trace);
      const hash = chainHash(head, bodyDigest(body));
      insert.run(trace.trace_id, trace.created_at, trace.outcome, trace.reason, trace.role, trace.as_of, body, bodyDigest(body), head, hash);
      head = hash;
    }
    db.prepare("INSERT INTO purges (purged_at, before, traces) VALUES ('2026-11-05T00:00:00.000Z', '2026-11-01T12:00:00.000Z', 1)").run();
    const first = db.prepare<[], Record<IndexedColumn, string | null>>(`SELECT ${INDEXED_COLUMNS.join(', ')} FROM traces WHERE seq = 1`).get();
    db.prepare('UPDATE traces SET body = ? WHERE seq = 1').run(tombstoneOf(first!, '2026-11-05T00:00:00.000Z'));
    db.close();
    const store = createSqliteTraceStore({ file });
    expect((await store.append({ ...asked[2]!, created_at: '2026-11-03T00:00:00.000Z' })).seq).toBe(3);
    await store.purge({ before: '2026-11-02T12:00:00.000Z', now: new Date('2026-12-01T00:00:00.000Z') });
    await store.close();
    const report = await verify(file);
    expect(findingsOf(report)).toEqual([]);
    expect(report).toMatchObject({ checked: 3, purged: 2 });
  });
});

describe('verify detects what the database cannot refuse', () => {
  const detected: [string, (file: string) => void, RegExp][] = [
    ['a dropped trigger', (f) => { sql(f, (db) => db.exec('DROP TRIGGER traces_no_update')); }, /schema: trigger traces_no_update is missing/u],
    ['a trigger replaced by one that never fires', (f) => { sql(f, (db) => db.exec("DROP TRIGGER traces_no_delete; CREATE TRIGGER traces_no_delete BEFORE DELETE ON traces WHEN 0 BEGIN SELECT RAISE(ABORT, 'traces are append-only: DELETE refused'); END;")); }, /schema: trigger traces_no_delete differs/u],
    [
      'a trigger disarmed through PRAGMA writable_schema',
      (f) => { sql(f, (db) => {
          db.unsafeMode(true);
          db.pragma('writable_schema = ON');
          db.prepare("UPDATE sqlite_master SET sql = replace(sql, 'BEFORE DELETE ON traces', 'BEFORE DELETE ON traces WHEN 0') WHERE name = 'traces_no_delete'").run();
        }); },
      /schema: trigger traces_no_delete differs/u,
    ],
    ['a dropped purges table', (f) => { sql(f, (db) => db.exec('DROP TABLE purges')); }, /schema: table purges is missing/u],
    ['a renamed traces table with a copy in its place', (f) => { sql(f, (db) => db.exec('ALTER TABLE traces RENAME TO traces_old; CREATE TABLE traces AS SELECT * FROM traces_old')); }, /schema: unexpected table traces_old/u],
    ['an extra trigger', (f) => { sql(f, (db) => db.exec("CREATE TRIGGER spy AFTER INSERT ON traces BEGIN SELECT 1; END")); }, /schema: unexpected trigger spy/u],
    ['a rolled-back schema version', (f) => { sql(f, (db) => db.pragma('user_version = 2')); }, new RegExp(`schema: version 2, expected ${SQLITE_MIGRATIONS.length}`, 'u')],
    [
      'a tombstone forged behind the triggers',
      (f) => { behindTriggers(f, ["UPDATE traces SET body = json_object('as_of', as_of, 'created_at', created_at, 'outcome', outcome, 'purged', json('true'), 'purged_at', '2026-12-02T15:00:00.000Z', 'reason', reason, 'role', role, 'trace_id', trace_id) WHERE seq = 3"]); },
      /no purge was recorded then \(forged purge\)/u,
    ],
    [
      'a tombstone that names the recorded purge but postdates its cutoff',
      (f) => { behindTriggers(f, ["UPDATE traces SET body = json_object('as_of', as_of, 'created_at', created_at, 'outcome', outcome, 'purged', json('true'), 'purged_at', '2026-12-02T13:00:00.000Z', 'reason', reason, 'role', role, 'trace_id', trace_id) WHERE seq = 3"]); },
      /not before the cutoff/u,
    ],
    ['a purge record deleted with its triggers', (f) => { behindTriggers(f, ['DELETE FROM purges']); }, /no purge was recorded then/u],
    ['a purge record that claims more traces', (f) => { behindTriggers(f, ['UPDATE purges SET traces = 2']); }, /purge #1 .* recorded 2 trace\(s\), but 1 stored record\(s\) carry its tombstone/u],
    [
      'a purge record added so that one chosen trace disappears through the purge path the triggers admit',
      (f) => { sql(f, (db) => db.exec(`INSERT INTO purges (purged_at, before, traces) VALUES ('2026-12-02T14:00:00.000Z', '2099-01-01T00:00:00.000Z', 1);
          UPDATE traces SET body = json_object('as_of', as_of, 'created_at', created_at, 'outcome', outcome, 'purged', json('true'), 'purged_at', '2026-12-02T14:00:00.000Z', 'reason', reason, 'role', role, 'trace_id', trace_id) WHERE seq = 3`)); },
      /purge #2 at 2026-12-02T14:00:00.000Z passed over trace #2, created 2026-12-02T01:00:00.000Z before its cutoff .* forged purge/u,
    ],
    ['a trace deleted from the middle of the chain', (f) => { behindTriggers(f, ['DELETE FROM traces WHERE seq = 2']); }, /trace #3 follows #1 \(traces were removed\)/u],
    // Audit finding 2: a row at seq <= 0 is read and named, wherever it sits.
    [
      'a trace inserted behind the triggers at seq -5',
      (f) => { behindTriggers(f, ["INSERT INTO traces SELECT -5, lower(hex(randomblob(16))), created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash || 'x' FROM traces WHERE seq = 2"]); },
      /trace #-5 has a sequence number below 1/u,
    ],
    // Audit finding 5: an index that no longer agrees with its table (quick_check does not compare them).
    ['two entries of the trace_id index swapped', swapIndexEntries, /database: .*index sqlite_autoindex_traces_1/u],
    // Audit finding 7: what a tombstone keeps is committed to by its purge record.
    [
      "a purged trace's role and outcome rewritten in its columns and tombstone",
      (f) => { behindTriggers(f, ["UPDATE traces SET role = 'staff', outcome = 'answer', body = json_object('as_of', as_of, 'created_at', created_at, 'outcome', 'answer', 'purged', json('true'), 'purged_at', json_extract(body, '$.purged_at'), 'reason', reason, 'role', 'staff', 'trace_id', trace_id) WHERE seq = 1"]); },
      /purge #1 at .*: its tombstones differ from those it recorded/u,
    ],
    // Audit finding 6: one chosen trace backdated and purged by a record of its own.
    [
      'a chosen trace backdated and tombstoned by a forged purge record',
      (f) => { behindTriggers(f, ["INSERT INTO purges (purged_at, before, traces) VALUES ('2026-12-03T21:00:00.000Z', '2020-01-02T00:00:00.000Z', 1)",
          "UPDATE traces SET created_at = '2020-01-01T00:00:00.000Z', body = json_object('as_of', as_of, 'created_at', '2020-01-01T00:00:00.000Z', 'outcome', outcome, 'purged', json('true'), 'purged_at', '2026-12-03T21:00:00.000Z', 'reason', reason, 'role', role, 'trace_id', trace_id) WHERE seq = 3"]); },
      /trace #3, created 2020-01-01T00:00:00.000Z, follows trace #2 created 2026-12-02T01:00:00.000Z/u,
    ],
  ];

  it.each(detected)('%s', async (_name, attack, finding) => {
    const file = await copy();
    attack(file);
    const report = await verify(file);
    expect(findingsOf(report).join('\n')).toMatch(finding);
  });

  it('lists every finding across traces and never stops at a malformed record', async () => {
    const file = await copy();
    behindTriggers(file, ["UPDATE traces SET body = '{not json' WHERE seq = 2", "UPDATE traces SET prev_hash = 'sha256:0' WHERE seq = 3", "UPDATE traces SET body = '[]' WHERE seq = 4"]);
    sql(file, (db) => db.exec('DROP TRIGGER traces_no_replace'));
    const report = await verify(file);
    expect(report.checked).toBe(QUESTIONS.length);
    expect(report.failed.map((f) => f.seq)).toEqual([2, 3, 4]);
    const findings = findingsOf(report).join('\n');
    for (const expected of [/body is not valid JSON/u, /prev_hash does not match/u, /not a contract trace/u, /traces_no_replace is missing/u]) expect(findings).toMatch(expected);
  });

  it('catches a flipped byte anywhere in the database that changes what it stores, and never crashes (property, fixed seed)', async () => {
    const original = await readFile(pristine);
    const contentOf = (file: string): string => {
      let content = '';
      sql(file, (db) => {
        content = JSON.stringify([db.prepare('SELECT * FROM sqlite_master').all(), db.prepare('SELECT * FROM traces').all(), db.prepare('SELECT * FROM purges').all()]);
      });
      return content;
    };
    const baseline = contentOf(pristine);
    let changed = 0;
    const file = path.join(await tempDir(), 'traces.sqlite');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: original.length - 1 }), fc.integer({ min: 1, max: 255 }), async (offset, mask) => {
        await Promise.all(['-wal', '-shm'].map((suffix) => rm(`${file}${suffix}`, { force: true })));
        const bytes = Buffer.from(original);
        bytes[offset] = (bytes[offset] ?? 0) ^ mask;
        await writeFile(file, bytes);
        let same: boolean;
        try {
          same = contentOf(file) === baseline;
        } catch {
          same = false;
        }
        let detected: boolean;
        try {
          detected = findingsOf(await verify(file)).length > 0;
        } catch (error) {
          // The one other outcome allowed: the store cannot be opened at all, said in one line.
          expect(String(error)).toMatch(/cannot open trace store/u);
          detected = true;
        }
        if (!same) changed += 1;
        expect(detected || same).toBe(true);
      }),
      { seed: 17, numRuns: 1000 },
    );
    expect(changed).toBeGreaterThan(0);
    // 1,000 verifications: minutes on a 2-core machine shared with other work.
  }, 600_000);
});
