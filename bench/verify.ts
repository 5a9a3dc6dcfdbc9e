/**
 * `verify --all` over many traces (issue 17: 100k traces in under 30 s). The demo corpus is
 * ingested, a few real questions are asked, and their traces are copied under new ids into one
 * hash chain (written in one transaction: appending 100k traces one fsync at a time would take
 * minutes and measure the disk, not verify); then the whole store is verified as the CLI does,
 * read-only. Prints the time and writes bench/results/verify.json.
 * Run: npx tsx bench/verify.ts [traces, default 100000]
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config/index.js';
import type { Trace } from '../src/domain/index.js';
import { findingsOf, verifyTraces } from '../src/eval/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { createEmbedder, openRuntime } from '../src/main.js';
import { bodyDigest, canonicalJson, chainHash, createSqliteTraceStore } from '../src/trace/index.js';

const TRACES = Number(process.argv[2] ?? 100_000);
const QUESTIONS = [
  'Until what time can I get blood drawn at the Harbor lab?',
  'How much is the no-show fee?',
  'What are your hours?',
  'How far ahead can I reschedule in the portal?',
  'Is parking free at Harbor Clinic?',
  'I think I am having a stroke',
];

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-verify-bench-'));
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir } });
  const embedder = await createEmbedder(config);
  await ingestRepository({ root: path.join(import.meta.dirname, '..', 'corpus'), dataDir, embedder, now: new Date() });
  const runtime = await openRuntime({ config, embedder });
  const asked: Trace[] = [];
  for (const question of QUESTIONS) asked.push(await runtime.assistant.ask({ question, role: 'patient' }));
  const index = runtime.index;
  await runtime.store.close();

  const db = new Database(config.traces);
  const insert = db.prepare(
    `INSERT INTO traces (trace_id, created_at, outcome, reason, role, as_of, body, body_sha256, prev_hash, hash)
     VALUES (@trace_id, @created_at, @outcome, @reason, @role, @as_of, @body, @body_sha256, @prev_hash, @hash)`,
  );
  const head = db.prepare<[], { hash: string }>('SELECT hash FROM traces ORDER BY seq DESC LIMIT 1');
  db.transaction(() => {
    let previous = head.get()?.hash ?? '';
    for (let i = asked.length; i < TRACES; i += 1) {
      const trace = { ...asked[i % asked.length]!, trace_id: randomUUID() as Trace['trace_id'] };
      const body = canonicalJson(trace);
      const digest = bodyDigest(body);
      const hash = chainHash(previous, digest);
      insert.run({ ...trace, body, body_sha256: digest, prev_hash: previous, hash });
      previous = hash;
    }
  })();
  db.close();

  const store = createSqliteTraceStore({ file: config.traces, readonly: true });
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  const report = await verifyTraces({ store, index, dataDir });
  const seconds = (performance.now() - started) / 1000;
  // CPU of this process: on a machine shared with other work, wall time is stretched and CPU time much less so.
  const cpu = process.cpuUsage(cpuStarted);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await store.close();
  index.close();
  const result = { traces: report.checked, seconds: Number(seconds.toFixed(2)), cpuSeconds: Number(cpuSeconds.toFixed(2)), perSecond: Math.round(report.checked / seconds), findings: findingsOf(report).length, load: os.loadavg() };
  process.stdout.write(`verify --all: ${result.traces} traces in ${result.seconds} s (${result.perSecond}/s; ${result.cpuSeconds} s of CPU), ${result.findings} finding(s); load ${os.loadavg()[0]?.toFixed(1) ?? ''}\n`);
  await mkdir(path.join(import.meta.dirname, 'results'), { recursive: true });
  await writeFile(path.join(import.meta.dirname, 'results', 'verify.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
