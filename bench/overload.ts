/**
 * Overload: many concurrent clients against the real service (demo corpus, real embedder, SQLite
 * traces) on loopback, rate limit off. The server runs in its own process and reports its memory
 * every 100 ms; the clients run here, one keep-alive connection each, a bounded number of
 * questions each, and stop by themselves. A client that gets 503 waits its Retry-After (with
 * jitter, as a polite client does) unless --ignore-retry-after, which asks again at once.
 *
 * Prints and writes bench/results/overload.json: answered and refused counts, latency
 * percentiles of refused (503) and answered (200) requests, time-outs, socket errors, other
 * statuses, and the server's resident memory before, at peak and after.
 *
 * Run: npx tsx bench/overload.ts [--clients 3000] [--rounds 3] [--timeout-ms 30000]
 *        [--max-inflight N] [--max-queue N] [--ignore-retry-after]
 */
import { fork } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from '../src/eval/index.js';

const flag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const CLIENTS = Number(flag('clients') ?? 3000);
const ROUNDS = Number(flag('rounds') ?? 3);
const TIMEOUT_MS = Number(flag('timeout-ms') ?? 30_000);
const IGNORE_RETRY_AFTER = process.argv.includes('--ignore-retry-after');
const QUESTIONS = [
  'How much is the no-show fee?',
  'What are the Eastside Clinic hours?',
  'Can I get blood drawn at the Harbor lab without an appointment?',
  'How late can I reschedule through the portal?',
];

type ServerMessage =
  | { readonly ready: { port: number; key: string; operator: string; limits: { maxInflight: number; maxQueue: number } } }
  | { readonly rss: number; readonly heap: number; readonly loopDelayMaxMs: number; readonly elu: number };

async function server(dataDir: string): Promise<void> {
  const { loadConfig } = await import('../src/config/index.js');
  const { createEmbedder } = await import('../src/main.js');
  const { ingestRepository } = await import('../src/ingest/index.js');
  const { createSqliteKeyStore } = await import('../src/auth/index.js');
  const { createService } = await import('../src/http/index.js');
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir, CITETRACE_RATE_LIMIT: '100000000' } });
  const embedder = await createEmbedder(config);
  await ingestRepository({ root: fileURLToPath(new URL('../corpus', import.meta.url)), dataDir, embedder, now: new Date() });
  const keys = createSqliteKeyStore({ file: config.keys });
  const key = keys.create({ role: 'patient', label: 'bench' }).key;
  const operator = keys.create({ role: 'operator', label: 'bench' }).key;
  const service = await createService({ config, embedder, keys, rateLimitPerMinute: config.rateLimitPerMinute });
  const address = await service.listen({ host: '127.0.0.1', port: 0 });
  const limits = { maxInflight: config.maxInflight, maxQueue: config.maxQueue };
  process.send?.({ ready: { port: Number(new URL(address).port), key, operator, limits } } satisfies ServerMessage);
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let elu = performance.eventLoopUtilization();
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    const next = performance.eventLoopUtilization();
    process.send?.({ rss: m.rss, heap: m.heapUsed, loopDelayMaxMs: delay.max / 1e6, elu: performance.eventLoopUtilization(next, elu).utilization } satisfies ServerMessage);
    elu = next;
    delay.reset();
  }, 100);
  process.once('disconnect', () => {
    clearInterval(sample);
    void service.close().then(() => {
      keys.close();
    });
  });
}

interface Outcome {
  readonly status: number | 'timeout' | 'error';
  readonly ms: number;
  readonly retryAfter: number;
  readonly round: number;
}

function ask(agent: http.Agent, port: number, key: string, question: string, round = 0): Promise<Outcome> {
  const body = JSON.stringify({ question });
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: '/v1/ask', method: 'POST', agent, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.once('end', () => {
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, retryAfter: Number(res.headers['retry-after'] ?? 0), round });
        });
      },
    );
    req.setTimeout(TIMEOUT_MS, () => {
      req.destroy();
      resolve({ status: 'timeout', ms: performance.now() - started, retryAfter: 0, round });
    });
    req.once('error', () => {
      resolve({ status: 'error', ms: performance.now() - started, retryAfter: 0, round });
    });
    req.end(body);
  });
}

/**
 * The server's own view of /v1/ask 503s (from Fastify's request start to the response, so
 * without time spent in the socket before the server read it): count per histogram bucket.
 */
async function serverRefusals(port: number, operator: string): Promise<Record<string, number>> {
  const text = await new Promise<string>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/metrics', headers: { authorization: `Bearer ${operator}` } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.once('end', () => {
        resolve(body);
      });
    }).once('error', reject);
  });
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('citetrace_http_request_duration_seconds_bucket{') || !line.includes('route="/v1/ask"') || !line.includes('status="503"')) continue;
    const le = /le="([^"]+)"/u.exec(line)?.[1];
    if (le !== undefined) out[`le_${le}_s`] = Number(line.split(' ').at(-1));
  }
  return out;
}

/** Kernel TCP counters (Linux): SYNs dropped because a listen queue was full, SYNs retransmitted. */
async function tcpCounters(): Promise<Record<string, number>> {
  const text = await readFile('/proc/net/netstat', 'utf8').catch(() => '');
  const lines = text.split('\n').filter((l) => l.startsWith('TcpExt:'));
  const names = lines[0]?.split(/\s+/u) ?? [];
  const values = lines[1]?.split(/\s+/u) ?? [];
  const wanted = ['ListenOverflows', 'ListenDrops', 'TCPSynRetrans', 'TCPReqQFullDoCookies', 'TCPReqQFullDrop', 'TCPTimeouts'];
  return Object.fromEntries(wanted.map((w) => [w, Number(values[names.indexOf(w)] ?? 0)]));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number): number => Math.round(bytes / 1024 / 1024);
const stats = (ms: readonly number[]) =>
  ms.length === 0 ? null : { n: ms.length, p50_ms: Math.round(percentile(ms, 50)), p90_ms: Math.round(percentile(ms, 90)), p99_ms: Math.round(percentile(ms, 99)), max_ms: Math.round(Math.max(...ms)) };

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-overload-'));
  const env = { ...process.env };
  const maxInflight = flag('max-inflight');
  const maxQueue = flag('max-queue');
  if (maxInflight !== undefined) env.CITETRACE_MAX_INFLIGHT = maxInflight;
  if (maxQueue !== undefined) env.CITETRACE_MAX_QUEUE = maxQueue;
  const child = fork(fileURLToPath(import.meta.url), ['server', dataDir], { execArgv: ['--import', 'tsx'], env });
  const rss: number[] = [];
  const loopDelays: number[] = [];
  const elus: number[] = [];
  let heapPeak = 0;
  const ready = await new Promise<{ port: number; key: string; operator: string; limits: { maxInflight: number; maxQueue: number } }>((resolve, reject) => {
    child.on('message', (m: ServerMessage) => {
      if ('ready' in m) resolve(m.ready);
      else {
        rss.push(m.rss);
        loopDelays.push(m.loopDelayMaxMs);
        elus.push(m.elu);
        heapPeak = Math.max(heapPeak, m.heap);
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`server exited with ${String(code)}`));
    });
  });
  try {
    // Warm up: every question through the whole pipeline, four at a time, then settle the baseline.
    const warm = new http.Agent({ keepAlive: true });
    for (let i = 0; i < 3; i += 1) await Promise.all(QUESTIONS.map((q) => ask(warm, ready.port, ready.key, q)));
    warm.destroy();
    await sleep(500);
    const rssBefore = rss.at(-1) ?? 0;
    const loadStart = rss.length;

    // One keep-alive connection per client, as independent clients have: a shared agent would
    // queue requests inside this process (its free-socket cap of 256) and count that as latency.
    const agents = Array.from({ length: CLIENTS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const outcomes: Outcome[] = [];
    const tcpBefore = await tcpCounters();
    const clientDelay = monitorEventLoopDelay({ resolution: 5 });
    clientDelay.enable();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_v, client) => {
        for (let round = 0; round < ROUNDS; round += 1) {
          const outcome = await ask(agents[client] ?? warm, ready.port, ready.key, QUESTIONS[(client + round) % QUESTIONS.length] ?? '', round);
          outcomes.push(outcome);
          if (outcome.status === 503 && !IGNORE_RETRY_AFTER) await sleep(outcome.retryAfter * 1000 * (0.5 + Math.random()));
        }
      }),
    );
    const wallSeconds = (performance.now() - started) / 1000;
    clientDelay.disable();
    const tcpAfter = await tcpCounters();
    const serverSide = await serverRefusals(ready.port, ready.operator);
    for (const agent of agents) agent.destroy();
    await sleep(1000);
    const during = rss.slice(loadStart);
    const count = (s: Outcome['status']): number => outcomes.filter((o) => o.status === s).length;
    const other = outcomes.filter((o) => o.status !== 200 && o.status !== 503 && o.status !== 'timeout' && o.status !== 'error');
    const result = {
      clients: CLIENTS,
      rounds: ROUNDS,
      honours_retry_after: !IGNORE_RETRY_AFTER,
      limits: ready.limits,
      cpus: os.cpus().length,
      node: process.version,
      requests: outcomes.length,
      wall_seconds: Number(wallSeconds.toFixed(1)),
      answered: count(200),
      refused_503: count(503),
      timeouts: count('timeout'),
      socket_errors: count('error'),
      server_errors_other_than_503: other.filter((o) => typeof o.status === 'number' && o.status >= 500).length,
      other_statuses: [...new Set(other.map((o) => o.status))],
      refused_latency: stats(outcomes.filter((o) => o.status === 503).map((o) => o.ms)),
      refused_server_side_cumulative: serverSide,
      refused_latency_by_round: Array.from({ length: ROUNDS }, (_v, r) => stats(outcomes.filter((o) => o.status === 503 && o.round === r).map((o) => o.ms))),
      answered_latency: stats(outcomes.filter((o) => o.status === 200).map((o) => o.ms)),
      answered_per_second: Number((count(200) / wallSeconds).toFixed(1)),
      server_rss_mib: { before: mib(rssBefore), peak: mib(Math.max(rssBefore, ...during)), after: mib(rss.at(-1) ?? 0) },
      server_heap_peak_mib: mib(heapPeak),
      // Loopback-wide during the load (every listener on the machine counts).
      tcp_counters: Object.fromEntries(Object.entries(tcpAfter).map(([k, v]) => [k, v - (tcpBefore[k] ?? 0)])),
      // Per 100 ms sample during the load: the longest event-loop stall, and the loop's busy share.
      server_loop_stall_ms: { p50: Math.round(percentile(loopDelays.slice(loadStart), 50)), max: Math.round(Math.max(0, ...loopDelays.slice(loadStart))) },
      // The load generator's own stalls inflate every latency it measures.
      client_loop_stall_ms: { p99: Math.round(clientDelay.percentile(99) / 1e6), max: Math.round(clientDelay.max / 1e6) },
      server_loop_utilization_mean: Number((elus.slice(loadStart).reduce((a, b) => a + b, 0) / Math.max(1, elus.length - loadStart)).toFixed(2)),
    };
    console.log(JSON.stringify(result, null, 2));
    const out = fileURLToPath(new URL('./results/', import.meta.url));
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, `overload${IGNORE_RETRY_AFTER ? '-ignore-retry-after' : ''}.json`), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    const stop = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(stop);
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'server') await server(process.argv[3] ?? '');
else await main();
