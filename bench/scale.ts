/**
 * How citetrace grows with the policy repository: generated repositories of about 1k, 10k and
 * 100k passages (bench/scale-corpus.ts), and for each
 *   - `citetrace ingest` time and peak RSS (a child process, VmHWM from /proc);
 *   - per-question latency of each stage, through the real pipeline (createAssistant) with timing
 *     wrappers on its replaceable parts (embedder, index, retriever, generator, trace store), so
 *     no stage code is touched: normalize+redact+route (ask start -> retrieve), embed question,
 *     vector and full-text search, retrieve (embed + both searches in parallel + fusion),
 *     support/label/clarify (retrieve -> generate), generate (extractive), validate (generate ->
 *     append: validation and trace assembly), persist (SQLite commit), end to end, and end to end
 *     minus generate (the overhead an LLM would add to); p50/p95/p99;
 *   - recall@10 of the vector search actually used (HNSW on large tables) against exact search
 *     under the same in-force prefilter, and exact search latency for comparison;
 *   - HTTP throughput against a real `citetrace serve` on loopback with 1 and 32 concurrent
 *     clients (answered questions/s, latency), then a check that every answered question's trace
 *     is stored, and the server's peak RSS;
 *   - `citetrace replay` time per 1,000 stored traces (startup subtracted);
 * plus SQLite trace appends per second with 1 and 32 writer processes (bench/trace-appends.ts;
 * independent of the corpus). Prints a table, writes bench/results/scale.json.
 *
 * Run: npx tsx bench/scale.ts [--sizes 1000,10000,100000] [--rounds 5] [--http-seconds 10] [--skip-http] [--skip-appends] [--keep DIR [--reuse]] [--out FILE]
 * 100k passages means ~100k MiniLM embeddings: about 20 minutes of ingest on 2 cores.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { loadConfig } from '../src/config/index.js';
import { matchesMentioned, type Trace } from '../src/domain/index.js';
import type { Embedder } from '../src/embed/index.js';
import { percentile } from '../src/eval/index.js';
import { createExtractiveGenerator, type Generator } from '../src/generate/index.js';
import { openPolicyIndex, type PolicyIndex } from '../src/index-store/index.js';
import { createEmbedder, createScopeRouterFor, loadShippedJudge } from '../src/main.js';
import { createAssistant } from '../src/pipeline/index.js';
import { deploymentNames, mentionedEntities, normalizeQuestion } from '../src/policy/index.js';
import { createHybridRetriever, type Retriever } from '../src/retrieve/index.js';
import { createRedactor, createSqliteTraceStore, type TraceStore } from '../src/trace/index.js';
import { generateScaleCorpus, scaleQuestions } from './scale-corpus.js';
import { measureSqliteAppends } from './trace-appends.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'citetrace.js');
const AS_OF = '2026-12-02';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const SIZES = (option('sizes') ?? '1000,10000,100000').split(',').map(Number);
const ROUNDS = Number(option('rounds') ?? 5);
const HTTP_SECONDS = Number(option('http-seconds') ?? 10);
const SKIP_HTTP = process.argv.includes('--skip-http');
const SKIP_APPENDS = process.argv.includes('--skip-appends');
const KEEP = option('keep');
/** With --keep: measure an index already built there again instead of generating and ingesting it. */
const REUSE = process.argv.includes('--reuse');
const OUT = option('out') ?? path.join(ROOT, 'bench', 'results', 'scale.json');

type Pcts = { readonly n: number; readonly p50: number; readonly p95: number; readonly p99: number };
const pcts = (xs: readonly number[]): Pcts => ({ n: xs.length, p50: percentile(xs, 50), p95: percentile(xs, 95), p99: percentile(xs, 99) });

interface Marks {
  t0: number;
  t1?: number;
  r0?: number;
  r1?: number;
  e0?: number;
  e1?: number;
  v0?: number;
  v1?: number;
  f0?: number;
  f1?: number;
  g0?: number;
  g1?: number;
  a0?: number;
  a1?: number;
}
let marks: Marks = { t0: 0 };
const now = (): number => performance.now();

/** Wrap an async stage call so it stamps `marks[start]` before and `marks[end]` after. */
const timed =
  <A, R>(start: keyof Marks, end: keyof Marks, call: (arg: A) => Promise<R>) =>
  async (arg: A): Promise<R> => {
    marks[start] = now();
    const out = await call(arg);
    marks[end] = now();
    return out;
  };

/** Forward every property of `target`, replacing the named methods: timing without touching stage code. */
function instrument<T extends object>(target: T, replace: Partial<T>): T {
  return new Proxy(target, {
    get(t, p) {
      if (Object.hasOwn(replace, p)) return replace[p as keyof T];
      const v: unknown = Reflect.get(t, p);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}

const STAGES = ['normalize+route', 'embed question', 'vector search', 'full-text search', 'retrieve (total)', 'support/label', 'generate', 'validate', 'persist', 'end to end', 'end to end - generate'] as const;
type Stage = (typeof STAGES)[number];

function stagesOf(m: Marks): Partial<Record<Stage, number>> {
  const d = (a?: number, b?: number): number | undefined => (a === undefined || b === undefined ? undefined : b - a);
  const out: Partial<Record<Stage, number | undefined>> = {
    'normalize+route': d(m.t0, m.r0 ?? m.a0),
    'embed question': d(m.e0, m.e1),
    'vector search': d(m.v0, m.v1),
    'full-text search': d(m.f0, m.f1),
    'retrieve (total)': d(m.r0, m.r1),
    'support/label': d(m.r1, m.g0 ?? m.a0),
    generate: d(m.g0, m.g1),
    validate: d(m.g1, m.a0),
    persist: d(m.a0, m.a1),
    'end to end': d(m.t0, m.t1),
    'end to end - generate': d(m.t0, m.t1) === undefined ? undefined : (m.t1 ?? 0) - m.t0 - (d(m.g0, m.g1) ?? 0),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

async function stageLatency(options: { dataDir: string; embedder: Embedder; questions: readonly string[]; tracesFile: string }) {
  const index = await openPolicyIndex({ dataDir: options.dataDir });
  const embedder = instrument(options.embedder, {
    embed: timed('e0', 'e1', (req: Parameters<typeof options.embedder.embed>[0]) => options.embedder.embed(req)),
  });
  const timedIndex = instrument<PolicyIndex>(index, {
    vectorSearch: timed('v0', 'v1', (req: Parameters<typeof index.vectorSearch>[0]) => index.vectorSearch(req)),
    textSearch: timed('f0', 'f1', (req: Parameters<typeof index.textSearch>[0]) => index.textSearch(req)),
  });
  const baseRetriever = createHybridRetriever({ index: timedIndex, embedder });
  const retriever = instrument<Retriever>(baseRetriever, {
    retrieve: timed('r0', 'r1', (req: Parameters<typeof baseRetriever.retrieve>[0]) => baseRetriever.retrieve(req)),
  });
  const baseGenerator = createExtractiveGenerator();
  const generator = instrument<Generator>(baseGenerator, {
    generate: timed('g0', 'g1', (req: Parameters<typeof baseGenerator.generate>[0]) => baseGenerator.generate(req)),
  });
  const baseStore = createSqliteTraceStore({ file: options.tracesFile });
  const store = instrument<TraceStore>(baseStore, {
    append: timed('a0', 'a1', (trace: Parameters<typeof baseStore.append>[0]) => baseStore.append(trace)),
  });
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: options.dataDir } });
  const redactor = createRedactor(deploymentNames(index.manifest.assistant));
  const assistant = createAssistant({
    assistant: index.manifest.assistant,
    retriever,
    inForce: (query) => index.inForce(query),
    router: await createScopeRouterFor(index.manifest.assistant, config),
    judge: await loadShippedJudge(config),
    generator,
    store,
    embedderId: `${embedder.modelId}@sha256:${embedder.weightsSha256.slice(0, 16)}`,
    indexSnapshot: index.snapshotId,
    settings: { candidates: config.candidates, k: config.k, judgeUnits: config.judgeUnits, beyondKThreshold: config.beyondKThreshold },
    clock: () => new Date(`${AS_OF}T12:00:00.000Z`),
    newId: randomUUID,
    redact: (text) => redactor(text).text,
  });
  const samples = new Map<Stage, number[]>(STAGES.map((s) => [s, []]));
  // CPU time of this process (all its threads: LanceDB's and onnxruntime's too) per question:
  // unlike wall time, it does not grow when other processes share the cores.
  const cpuMs: number[] = [];
  const outcomes: Record<string, number> = {};
  for (let round = 0; round <= ROUNDS; round += 1) {
    for (const question of options.questions) {
      const cpu = process.cpuUsage();
      marks = { t0: now() };
      const trace: Trace = await assistant.ask({ question, role: 'patient' });
      marks.t1 = now();
      const used = process.cpuUsage(cpu);
      if (round === 0) continue; // warm-up
      cpuMs.push((used.user + used.system) / 1000);
      outcomes[trace.outcome] = (outcomes[trace.outcome] ?? 0) + 1;
      for (const [stage, ms] of Object.entries(stagesOf(marks))) samples.get(stage as Stage)?.push(ms);
    }
  }

  // The vector search used (HNSW on large tables) against exact search, same prefilter and question.
  let hits = 0;
  let total = 0;
  const exactMs: number[] = [];
  const usedMs: number[] = [];
  const inForce = [...index.inForce({ role: 'patient', asOf: AS_OF }).values()];
  for (const question of options.questions) {
    const analysis = normalizeQuestion(question).normalized;
    const mentioned = mentionedEntities(analysis, index.manifest.assistant);
    const revisions = inForce.filter((r) => matchesMentioned(r.entities, mentioned)).map((r) => r.revision);
    const [vector] = await options.embedder.embed({ texts: [analysis] });
    if (vector === undefined) continue;
    for (let i = 0; i < 3; i += 1) {
      let t = now();
      const exact = await index.vectorSearch({ vector, revisions, limit: 30, exact: true });
      exactMs.push(now() - t);
      t = now();
      const used = await index.vectorSearch({ vector, revisions, limit: 30 });
      usedMs.push(now() - t);
      if (i > 0) continue;
      const got = new Set(used.slice(0, 10).map((m) => m.passage.chunkId));
      const truth = exact.slice(0, 10);
      total += truth.length;
      hits += truth.filter((m) => got.has(m.passage.chunkId)).length;
    }
  }
  await baseStore.close();
  const result = {
    vector_method: index.vectorMethod,
    questions: options.questions.length * ROUNDS,
    outcomes,
    cpu_ms_per_question: pcts(cpuMs),
    cpu_ms_per_question_mean: cpuMs.reduce((a, b) => a + b, 0) / Math.max(1, cpuMs.length),
    stages_ms: Object.fromEntries([...samples.entries()].map(([k, v]) => [k, pcts(v)])) as Record<Stage, Pcts>,
    vector_recall_at_10_vs_exact: total === 0 ? null : hits / total,
    vector_search_exact_ms: pcts(exactMs),
    vector_search_used_ms: pcts(usedMs),
  };
  index.close();
  return result;
}

/** Run the real CLI; wall time and peak RSS (VmHWM, polled from /proc until it exits). */
function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; peakRssMb: number; stdout: string; stderr: string; code: number }> {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let peak = 0;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const poll = setInterval(() => (peak = Math.max(peak, peakRssOf(child.pid))), 100);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(poll);
      resolve({ ms: now() - started, peakRssMb: peak, stdout, stderr, code: code ?? 1 });
    });
  });
}

/** CPU time (user + system, all threads) a live process has used so far, in ms. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8').replace(/^.*\) /su, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in ticks of 1/100 s
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set size of a live process in MB (VmHWM), 0 once it has exited. */
function peakRssOf(pid: number | undefined): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/u.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]) / 1024;
  } catch {
    return 0;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address !== null) resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

async function load(url: string, key: string, questions: readonly string[], clients: number, seconds: number) {
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  let answered = 0;
  let failed = 0;
  const until = now() + seconds * 1000;
  const started = now();
  await Promise.all(
    Array.from({ length: clients }, async (_v, client) => {
      for (let i = client; now() < until; i += clients) {
        const t = now();
        const response = await fetch(`${url}/v1/ask`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ question: questions[i % questions.length], as_of: AS_OF }),
        });
        const body = (await response.json()) as { outcome?: string };
        if (response.status === 200) {
          answered += 1;
          latencies.push(now() - t);
          outcomes[body.outcome ?? '?'] = (outcomes[body.outcome ?? '?'] ?? 0) + 1;
        } else failed += 1;
      }
    }),
  );
  const elapsed = (now() - started) / 1000;
  return { clients, seconds: elapsed, answered, failed, per_second: answered / elapsed, latency_ms: pcts(latencies), outcomes };
}

async function httpThroughput(dataDir: string, questions: readonly string[]) {
  const env = { ...process.env, CITETRACE_DATA: dataDir, CITETRACE_RATE_LIMIT: '100000000' };
  const tracesFile = path.join(dataDir, 'traces.sqlite');
  const countTraces = (): number => {
    if (!existsSync(tracesFile)) return 0;
    const db = new Database(tracesFile, { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM traces').get() as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const before = countTraces();
  const created = await runCli(['keys', 'create', '--role', 'patient', '--label', 'scale-bench'], env);
  const key = created.stdout.trim();
  const port = await freePort();
  const server = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let serverErr = '';
  server.stderr.on('data', (d: Buffer) => (serverErr += d.toString()));
  const exited = new Promise<void>((resolve) => server.on('exit', () => { resolve(); }));
  const url = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; ; i += 1) {
      const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
      if (ok) break;
      if (i > 1200) throw new Error(`serve did not come up: ${serverErr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const warm = await load(url, key, questions, 4, 2);
    const measured = async (clients: number) => {
      const cpu0 = cpuMsOf(server.pid);
      const result = await load(url, key, questions, clients, HTTP_SECONDS);
      const serverCpuMs = cpuMsOf(server.pid) - cpu0;
      // Server CPU per answered question, and the rate the cores could sustain if the server had them all.
      const perQuestion = serverCpuMs / Math.max(1, result.answered);
      return { ...result, server_cpu_ms_per_question: perQuestion, server_cpu_bound_per_second: (os.cpus().length * 1000) / perQuestion };
    };
    const one = await measured(1);
    const many = await measured(32);
    const peakRssMb = peakRssOf(server.pid);
    server.kill('SIGTERM');
    await exited;
    const stored = countTraces() - before;
    const expected = warm.answered + one.answered + many.answered;
    return { clients_1: one, clients_32: many, traces_stored: stored, traces_expected: expected, all_traces_stored: stored === expected, serve_peak_rss_mb: peakRssMb };
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
  }
}

async function replaySpeed(dataDir: string) {
  const env = { ...process.env, CITETRACE_DATA: dataDir };
  const startup = await runCli(['replay', '--limit', '0', '--json'], env);
  const run = await runCli(['replay', '--limit', '1000', '--json'], env);
  if (run.code !== 0) throw new Error(`replay failed: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { replayed: number; unchanged: number };
  return {
    replayed: report.replayed,
    unchanged: report.unchanged,
    wall_ms: run.ms,
    startup_ms: startup.ms,
    per_1000_ms: report.replayed === 0 ? null : ((run.ms - startup.ms) * 1000) / report.replayed,
  };
}

/** Written after every size, so a long run that fails late keeps what it measured. */
async function writeResults(appends: unknown): Promise<void> {
  await mkdir(path.dirname(OUT), { recursive: true });
  await writeFile(
    OUT,
    `${JSON.stringify({ machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'cpu'}`, as_of: AS_OF, rounds: ROUNDS, http_seconds: HTTP_SECONDS, results, trace_appends_per_second: appends }, null, 2)}\n`,
  );
}

const f1 = (x: number | null | undefined): string => (x === null || x === undefined ? '-' : x.toFixed(1));
const work = KEEP ?? (await mkdtemp(path.join(os.tmpdir(), 'citetrace-scale-')));
const results: Record<string, unknown>[] = [];
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: work } });
  const embedder = await createEmbedder(config);
  for (const size of SIZES) {
    const dir = path.join(work, String(size));
    const repo = path.join(dir, 'repo');
    const dataDir = path.join(dir, 'data');
    const reuse = REUSE && existsSync(path.join(dataDir, 'manifest.json'));
    if (!reuse) await rm(dir, { recursive: true, force: true });
    const corpus = await generateScaleCorpus({ dir: reuse ? path.join(os.tmpdir(), `citetrace-scale-questions-${randomUUID()}`) : repo, passages: size });
    console.error(`[${size}] generated ${corpus.files} files (${corpus.sources} sources); ${reuse ? 'reusing the index' : 'ingesting…'}`);
    const ingest = reuse
      ? { ms: Number.NaN, peakRssMb: Number.NaN, stdout: '', stderr: '', code: 0 }
      : await runCli(['--init', 'ingest', repo], { ...process.env, CITETRACE_DATA: dataDir });
    if (ingest.code !== 0) throw new Error(`ingest failed: ${ingest.stderr}`);
    const index = await openPolicyIndex({ dataDir });
    const inForce = index.inForce({ role: 'patient', asOf: AS_OF }).size;
    const revisions = index.revisions.size;
    index.close();
    const passagesAdded = reuse ? corpus.estimatedPassages : Number(/(\d+) passage\(s\)/u.exec(ingest.stdout)?.[1] ?? Number.NaN);
    const questions = scaleQuestions(corpus);
    console.error(`[${size}] ingested in ${(ingest.ms / 1000).toFixed(1)} s; stage latency…`);
    const stages = await stageLatency({ dataDir, embedder, questions, tracesFile: path.join(dir, 'stage-traces.sqlite') });
    let http: Awaited<ReturnType<typeof httpThroughput>> | null = null;
    let replay: Awaited<ReturnType<typeof replaySpeed>> | null = null;
    if (!SKIP_HTTP) {
      console.error(`[${size}] HTTP with 1 and 32 clients…`);
      http = await httpThroughput(dataDir, questions);
      console.error(`[${size}] replay…`);
      replay = await replaySpeed(dataDir);
    }
    results.push({
      size,
      corpus: { ...corpus, clinicNames: undefined, topicTitles: undefined, passages: passagesAdded, revisions, in_force_for_patient: inForce },
      ingest: { seconds: ingest.ms / 1000, peak_rss_mb: ingest.peakRssMb, summary: ingest.stdout.trim().split('\n')[0] },
      ...stages,
      http,
      replay,
    });
    if (KEEP === undefined) await rm(dir, { recursive: true, force: true });
    await writeResults(null);
  }
  let appends: { writers_1: number; writers_32: number } | null = null;
  if (!SKIP_APPENDS) {
    console.error('trace appends with 1 and 32 writer processes…');
    try {
      appends = { writers_1: await measureSqliteAppends(1), writers_32: await measureSqliteAppends(32) };
    } catch (error) {
      console.error(`trace appends not measured: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // The table: one column per size.
  const cols = results.map((r) => String(r.size));
  const row = (label: string, values: readonly string[]): void => { console.log(`${label.padEnd(44)}${values.map((v) => v.padStart(20)).join('')}`); };
  const get = (r: Record<string, unknown>, p: string): unknown => p.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | null)?.[k], r);
  console.log(`\ncitetrace at scale (${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'cpu'}; extractive generator; SQLite traces; as of ${AS_OF})`);
  row('target passages', cols);
  row('passages / revisions / in force (patient)', results.map((r) => `${String(get(r, 'corpus.passages'))}/${String(get(r, 'corpus.revisions'))}/${String(get(r, 'corpus.in_force_for_patient'))}`));
  row('ingest s / peak RSS MB', results.map((r) => `${f1(get(r, 'ingest.seconds') as number)} / ${Math.round(get(r, 'ingest.peak_rss_mb') as number)}`));
  row('vector search method', results.map((r) => String(r.vector_method)));
  row('vector recall@10 vs exact', results.map((r) => f1((r.vector_recall_at_10_vs_exact as number) * 100) + '%'));
  row('vector search exact p50/p95 ms', results.map((r) => `${f1(get(r, 'vector_search_exact_ms.p50') as number)} / ${f1(get(r, 'vector_search_exact_ms.p95') as number)}`));
  row('vector search used p50/p95 ms', results.map((r) => `${f1(get(r, 'vector_search_used_ms.p50') as number)} / ${f1(get(r, 'vector_search_used_ms.p95') as number)}`));
  row('CPU ms per question (all threads) mean', results.map((r) => f1(r.cpu_ms_per_question_mean as number)));
  console.log('per question, ms p50 / p95 / p99:');
  for (const stage of STAGES) {
    row(`  ${stage}`, results.map((r) => {
      const p = (r.stages_ms as Record<Stage, Pcts>)[stage];
      return p.n === 0 ? '-' : `${f1(p.p50)}/${f1(p.p95)}/${f1(p.p99)}`;
    }));
  }
  if (!SKIP_HTTP) {
    row('HTTP 1 client: answered/s (p95 ms)', results.map((r) => `${f1(get(r, 'http.clients_1.per_second') as number)} (${f1(get(r, 'http.clients_1.latency_ms.p95') as number)})`));
    row('HTTP 32 clients: answered/s (p95 ms)', results.map((r) => `${f1(get(r, 'http.clients_32.per_second') as number)} (${f1(get(r, 'http.clients_32.latency_ms.p95') as number)})`));
    row('serve CPU ms/question @32 (cores-bound q/s)', results.map((r) => `${f1(get(r, 'http.clients_32.server_cpu_ms_per_question') as number)} (${f1(get(r, 'http.clients_32.server_cpu_bound_per_second') as number)})`));
    row('traces stored / answered', results.map((r) => `${String(get(r, 'http.traces_stored'))}/${String(get(r, 'http.traces_expected'))}`));
    row('serve peak RSS MB', results.map((r) => String(Math.round(get(r, 'http.serve_peak_rss_mb') as number))));
    row('replay: per 1,000 traces s (startup s)', results.map((r) => `${f1((get(r, 'replay.per_1000_ms') as number) / 1000)} (${f1((get(r, 'replay.startup_ms') as number) / 1000)})`));
  }
  if (appends !== null) console.log(`trace appends/s (SQLite, WAL, synchronous=FULL; corpus-independent): ${Math.round(appends.writers_1)} with 1 writer, ${Math.round(appends.writers_32)} with 32 writer processes`);

  // Goals, and where the time goes when one is missed.
  console.log('\ngoals');
  for (const r of results) {
    const st = r.stages_ms as Record<Stage, Pcts>;
    const overhead = st['end to end - generate'].p95;
    const retrieve = st['retrieve (total)'].p95;
    const where = STAGES.filter((s) => !s.startsWith('end to end') && s !== 'retrieve (total)')
      .map((s) => [s, st[s].p95] as const)
      .sort((a, b) => b[1] - a[1])
      .map(([s, v]) => `${s} ${f1(v)}`)
      .join(', ');
    if (r.size === 10_000) {
      console.log(`  end-to-end overhead outside the generator p95 < 25 ms at 10k: ${f1(overhead)} ms ${overhead < 25 ? 'MET' : 'MISSED'} (stage p95s: ${where})`);
      console.log(`  retrieval p95 < 30 ms at 10k: ${f1(retrieve)} ms ${retrieve < 30 ? 'MET' : 'MISSED'}`);
    }
    if (!SKIP_HTTP) {
      const qps = get(r, 'http.clients_32.per_second') as number;
      const cpu = get(r, 'http.clients_32.server_cpu_ms_per_question') as number;
      console.log(
        `  >= 150 answered/s with 32 clients on SQLite at ${String(r.size)}: ${f1(qps)} ${qps >= 150 ? 'MET' : `MISSED (the server spends ${f1(cpu)} ms of CPU per answered question, so ${os.cpus().length} cores bound it at ${f1((os.cpus().length * 1000) / cpu)}/s before the load generator and other processes take their share; in-process CPU per question ${f1(r.cpu_ms_per_question_mean as number)} ms; stage p95s: ${where})`}`,
      );
    }
    if (r.size === 100_000) {
      const peak = Math.max(...[get(r, 'ingest.peak_rss_mb') as number, (get(r, 'http.serve_peak_rss_mb') as number | undefined) ?? 0].filter((x) => !Number.isNaN(x)));
      console.log(`  memory < 1 GiB at 100k: peak ${Math.round(peak)} MB ${peak < 1024 ? 'MET' : 'MISSED'} (ingest ${Math.round(get(r, 'ingest.peak_rss_mb') as number)} MB, serve ${Math.round((get(r, 'http.serve_peak_rss_mb') as number | undefined) ?? 0)} MB)`);
    }
  }
  await writeResults(appends);
} finally {
  if (KEEP === undefined) await rm(work, { recursive: true, force: true });
}
