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
 * --peer bare: the same load, from the same client in the same run, also against a minimal peer
 * (plain node:http in its own process, same listen backlog and keep-alive time-out as citetrace's
 * server, answering every POST /v1/ask at once with 503, Retry-After and a problem body of the
 * same size), then both servers' figures side by side with the ratio citetrace / peer: what a
 * refusal costs on this machine with no framework and no service behind it. The servers take
 * turns (citetrace, peer, then peer, citetrace, ... for --repeat N), so neither always goes first.
 * The peer's Retry-After is --peer-retry-after (default: the median citetrace gave in this run).
 * Writes bench/results/overload-peer.json. --refuse-all gives citetrace no slot and no queue, so
 * it refuses every question and answers none: its refusal path alone, without the pipeline's work.
 * --peer-busy-ms MS keeps the peer's event loop busy MS at a time during its load (see peer()).
 * For round 1 the bench also times each new connection: established on the client's side,
 * accepted by the server, and its first request read by the server.
 *
 * Run: npx tsx bench/overload.ts [--clients 3000] [--rounds 3] [--timeout-ms 30000]
 *        [--max-inflight N] [--max-queue N] [--ignore-retry-after]
 *        [--peer bare [--repeat 2] [--peer-retry-after S] [--peer-busy-ms MS]] [--refuse-all]
 */
import { fork, type ChildProcess } from 'node:child_process';
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
const PEER = flag('peer');
const REPEAT = Number(flag('repeat') ?? 1);
const PEER_RETRY_AFTER = flag('peer-retry-after');
/** Citetrace with no slot and no queue: every question refused, none answered, so only the refusal path runs. */
const REFUSE_ALL = process.argv.includes('--refuse-all');
const PEER_BUSY_MS = Number(flag('peer-busy-ms') ?? 0);
/** As citetrace's server (src/http/service.ts) and Fastify's defaults, so the peer differs only in what it runs per request. */
const LISTEN_BACKLOG = 4096;
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
const QUESTIONS = [
  'How much is the no-show fee?',
  'What are the Eastside Clinic hours?',
  'Can I get blood drawn at the Harbor lab without an appointment?',
  'How late can I reschedule through the portal?',
];

interface Ready {
  readonly port: number;
  readonly key: string;
  readonly operator: string;
  readonly limits: { maxInflight: number; maxQueue: number };
}
/** When a server accepted each connection, and how long after it the connection's first request reached the server. */
interface Accepts {
  readonly acceptedAt: readonly number[];
  readonly firstRequestMs: readonly number[];
}
type ServerMessage =
  | { readonly ready: Ready }
  | { readonly accepts: Accepts }
  | { readonly rss: number; readonly heap: number; readonly loopDelayMaxMs: number; readonly elu: number; readonly cpuMs: number };

/** Wall-clock milliseconds that the parent and its children agree on. */
const epochMs = (): number => performance.timeOrigin + performance.now();

/**
 * Record each accepted connection and when its first request is read (the 'request' event, before
 * any framework runs), and hand them to the parent when it asks ('accepts'), starting afresh.
 */
function recordAccepts(server: http.Server): void {
  let acceptedAt: number[] = [];
  let firstRequestMs: number[] = [];
  const pending = new WeakMap<object, number>();
  server.on('connection', (socket: object) => {
    const t = epochMs();
    acceptedAt.push(t);
    pending.set(socket, t);
  });
  server.on('request', (req: http.IncomingMessage) => {
    const accepted = pending.get(req.socket);
    if (accepted === undefined) return;
    firstRequestMs.push(epochMs() - accepted);
    pending.delete(req.socket);
  });
  process.on('message', (m: unknown) => {
    if (m !== 'accepts') return;
    process.send?.({ accepts: { acceptedAt, firstRequestMs } } satisfies ServerMessage);
    acceptedAt = [];
    firstRequestMs = [];
  });
}

/** Every 100 ms: memory, the longest event-loop stall, the loop's busy share and CPU time used so far (every thread), to the parent. */
function reportUsage(): () => void {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let elu = performance.eventLoopUtilization();
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    const next = performance.eventLoopUtilization();
    const cpu = process.cpuUsage();
    process.send?.({ rss: m.rss, heap: m.heapUsed, loopDelayMaxMs: delay.max / 1e6, elu: performance.eventLoopUtilization(next, elu).utilization, cpuMs: (cpu.user + cpu.system) / 1000 } satisfies ServerMessage);
    elu = next;
    delay.reset();
  }, 100);
  return () => {
    clearInterval(sample);
    delay.disable();
  };
}

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
  const service = await createService({
    config,
    embedder,
    keys,
    rateLimitPerMinute: config.rateLimitPerMinute,
    ...(REFUSE_ALL ? { admission: { maxInflight: 0, maxQueue: 0 } } : {}),
  });
  const address = await service.listen({ host: '127.0.0.1', port: 0 });
  const limits = { maxInflight: config.maxInflight, maxQueue: config.maxQueue };
  recordAccepts(service.app.server);
  process.send?.({ ready: { port: Number(new URL(address).port), key, operator, limits } } satisfies ServerMessage);
  const stop = reportUsage();
  process.once('disconnect', () => {
    stop();
    void service.close().then(() => {
      keys.close();
    });
  });
}

/**
 * The peer: plain node:http, every POST /v1/ask refused at once with 503, Retry-After (set by the
 * parent before each load) and a problem body as long as citetrace's; anything else 404. With
 * busyMs > 0 (--peer-busy-ms) it keeps its own event loop busy during the load, busyMs of
 * synchronous work at a time with a sixth of that free between, as answering questions keeps
 * citetrace's: the peer then shows what a busy loop alone does to refusals.
 */
async function peer(): Promise<void> {
  let retryAfter = '1';
  let busyMs = 0;
  const spin = (): void => {
    if (busyMs <= 0) return;
    const until = performance.now() + busyMs;
    while (performance.now() < until) {
      // busy, as a synchronous inference is
    }
    setTimeout(spin, Math.max(1, Math.round(busyMs / 6)));
  };
  const body = JSON.stringify({
    type: 'https://citetrace.dev/problems/overloaded',
    title: 'Service unavailable',
    status: 503,
    detail: 'overloaded: 4 questions in progress and 32 waiting; retry in 1 s',
  });
  const srv = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/ask') {
      res.writeHead(503, { 'content-type': 'application/problem+json; charset=utf-8', 'retry-after': retryAfter, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    } else {
      res.writeHead(404, { 'content-length': 0 });
      res.end();
    }
  });
  srv.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  recordAccepts(srv);
  srv.requestTimeout = 0;
  await new Promise<void>((resolve) => srv.listen({ host: '127.0.0.1', port: 0, backlog: LISTEN_BACKLOG }, resolve));
  const address = srv.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.send?.({ ready: { port, key: 'none', operator: 'none', limits: { maxInflight: 0, maxQueue: 0 } } } satisfies ServerMessage);
  process.on('message', (m: { retryAfter?: string; busyMs?: number }) => {
    if (m.retryAfter !== undefined) retryAfter = m.retryAfter;
    if (m.busyMs !== undefined) {
      const start = busyMs <= 0 && m.busyMs > 0;
      busyMs = m.busyMs;
      if (start) spin();
    }
  });
  const stop = reportUsage();
  process.once('disconnect', () => {
    stop();
    srv.closeAllConnections();
    srv.close();
  });
}

interface Outcome {
  readonly status: number | 'timeout' | 'error';
  readonly ms: number;
  readonly retryAfter: number;
  readonly round: number;
}

function ask(agent: http.Agent, port: number, key: string, question: string, round = 0, connects?: number[]): Promise<Outcome> {
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
    // A new connection: how long until the client's side of it is established.
    req.once('socket', (socket) => {
      if (socket.connecting) socket.once('connect', () => connects?.push(performance.now() - started));
    });
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
type Stats = { n: number; p50_ms: number; p90_ms: number; p99_ms: number; max_ms: number } | null;
const stats = (ms: readonly number[]): Stats =>
  ms.length === 0 ? null : { n: ms.length, p50_ms: Math.round(percentile(ms, 50)), p90_ms: Math.round(percentile(ms, 90)), p99_ms: Math.round(percentile(ms, 99)), max_ms: Math.round(Math.max(...ms)) };
const loadAverage = (): number[] => os.loadavg().map((l) => Number(l.toFixed(2)));

/** A server in its own process, and what it reported about itself. */
interface Child {
  readonly process: ChildProcess;
  readonly ready: Ready;
  readonly rss: number[];
  readonly loopDelays: number[];
  readonly elus: number[];
  readonly heap: number[];
  readonly cpuMs: number[];
  /** Resolves with what the server recorded since it was last asked. */
  accepts(): Promise<Accepts>;
}

async function startChild(args: readonly string[], env: NodeJS.ProcessEnv): Promise<Child> {
  const child = fork(fileURLToPath(import.meta.url), [...args], { execArgv: ['--import', 'tsx'], env });
  const rss: number[] = [];
  const loopDelays: number[] = [];
  const elus: number[] = [];
  const heap: number[] = [];
  const cpuMs: number[] = [];
  let onAccepts: ((a: Accepts) => void) | undefined;
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.on('message', (m: ServerMessage) => {
      if ('ready' in m) resolve(m.ready);
      else if ('accepts' in m) onAccepts?.(m.accepts);
      else {
        rss.push(m.rss);
        loopDelays.push(m.loopDelayMaxMs);
        elus.push(m.elu);
        heap.push(m.heap);
        cpuMs.push(m.cpuMs);
      }
    });
    child.once('exit', (code) => {
      reject(new Error(`server ${args[0] ?? ''} exited with ${String(code)}`));
    });
  });
  const accepts = (): Promise<Accepts> =>
    new Promise((resolve) => {
      onAccepts = resolve;
      child.send('accepts');
    });
  return { process: child, ready, rss, loopDelays, elus, heap, cpuMs, accepts };
}

async function stopChild(child: Child): Promise<void> {
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.disconnect();
  const stop = setTimeout(() => child.process.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(stop);
}

/** CLIENTS clients, ROUNDS questions each, against one server; its figures. */
async function load(target: Child, options: { readonly metrics: boolean }) {
  const { ready, rss, loopDelays, elus, heap, cpuMs } = target;
  await sleep(500);
  const rssBefore = rss.at(-1) ?? 0;
  const loadStart = rss.length;
  const loadAverageBefore = loadAverage();
  const cpuBefore = cpuMs.at(-1) ?? 0;
  await target.accepts(); // forget the warm-up's connections
  const connects: number[] = [];

  // One keep-alive connection per client, as independent clients have: a shared agent would
  // queue requests inside this process (its free-socket cap of 256) and count that as latency.
  const agents = Array.from({ length: CLIENTS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const outcomes: Outcome[] = [];
  const tcpBefore = await tcpCounters();
  const clientDelay = monitorEventLoopDelay({ resolution: 5 });
  clientDelay.enable();
  const started = performance.now();
  const startedAt = epochMs();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_v, client) => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const agent = agents[client];
        if (agent === undefined) throw new Error(`no agent for client ${String(client)}`);
        const outcome = await ask(agent, ready.port, ready.key, QUESTIONS[(client + round) % QUESTIONS.length] ?? '', round, round === 0 ? connects : undefined);
        outcomes.push(outcome);
        if (outcome.status === 503 && !IGNORE_RETRY_AFTER) await sleep(outcome.retryAfter * 1000 * (0.5 + Math.random()));
      }
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  clientDelay.disable();
  const loadAverageAfter = loadAverage();
  const tcpAfter = await tcpCounters();
  // The last sample at most 100 ms after the load ended.
  await sleep(150);
  const cpuDuring = (cpuMs.at(-1) ?? 0) - cpuBefore;
  const accepted = await target.accepts();
  const serverSide = options.metrics ? await serverRefusals(ready.port, ready.operator) : null;
  for (const agent of agents) agent.destroy();
  await sleep(1000);
  const during = rss.slice(loadStart);
  const count = (s: Outcome['status']): number => outcomes.filter((o) => o.status === s).length;
  const other = outcomes.filter((o) => o.status !== 200 && o.status !== 503 && o.status !== 'timeout' && o.status !== 'error');
  const refused = outcomes.filter((o) => o.status === 503);
  const retryAfters = refused.map((o) => o.retryAfter);
  return {
    requests: outcomes.length,
    wall_seconds: Number(wallSeconds.toFixed(1)),
    answered: count(200),
    refused_503: count(503),
    timeouts: count('timeout'),
    socket_errors: count('error'),
    server_errors_other_than_503: other.filter((o) => typeof o.status === 'number' && o.status >= 500).length,
    other_statuses: [...new Set(other.map((o) => o.status))],
    refused_latency: stats(refused.map((o) => o.ms)),
    ...(serverSide === null ? {} : { refused_server_side_cumulative: serverSide }),
    refused_latency_by_round: Array.from({ length: ROUNDS }, (_v, r) => stats(refused.filter((o) => o.round === r).map((o) => o.ms))),
    // Rounds 2 onwards together: the clients come back spread by Retry-After and its jitter.
    refused_latency_steady: stats(refused.filter((o) => o.round > 0).map((o) => o.ms)),
    retry_after_s: retryAfters.length === 0 ? null : { min: Math.min(...retryAfters), median: percentile(retryAfters, 50), max: Math.max(...retryAfters) },
    // Round 1's new connections, three views: established on the client's side (from the request's
    // creation), accepted by the server (from the load's start; the first CLIENTS accepts), and
    // the first request read by the server (from its accept). A connection established long before
    // the server accepts it waited in the listen queue for the server's event loop.
    round1_client_connected: stats(connects),
    round1_server_accepted: stats(accepted.acceptedAt.slice(0, CLIENTS).map((t) => t - startedAt)),
    round1_server_first_request_after_accept: stats(accepted.firstRequestMs.slice(0, CLIENTS)),
    answered_latency: stats(outcomes.filter((o) => o.status === 200).map((o) => o.ms)),
    answered_per_second: Number((count(200) / wallSeconds).toFixed(1)),
    server_rss_mib: { before: mib(rssBefore), peak: mib(Math.max(rssBefore, ...during)), after: mib(rss.at(-1) ?? 0) },
    server_heap_peak_mib: mib(Math.max(0, ...heap.slice(loadStart))),
    // Loopback-wide during the load (every listener on the machine counts).
    tcp_counters: Object.fromEntries(Object.entries(tcpAfter).map(([k, v]) => [k, v - (tcpBefore[k] ?? 0)])),
    // Per 100 ms sample during the load: the longest event-loop stall, and the loop's busy share.
    server_loop_stall_ms: { p50: Math.round(percentile(loopDelays.slice(loadStart), 50)), max: Math.round(Math.max(0, ...loopDelays.slice(loadStart))) },
    // The load generator's own stalls inflate every latency it measures.
    client_loop_stall_ms: { p99: Math.round(clientDelay.percentile(99) / 1e6), max: Math.round(clientDelay.max / 1e6) },
    // CPU time of the server process (all its threads) over the load, per request: what serving
    // one costs, whatever else the machine was doing.
    server_cpu_ms: Math.round(cpuDuring),
    server_cpu_ms_per_request: Number((cpuDuring / Math.max(1, outcomes.length)).toFixed(3)),
    server_loop_utilization_mean: Number((elus.slice(loadStart).reduce((a, b) => a + b, 0) / Math.max(1, elus.length - loadStart)).toFixed(2)),
    load_average_1_5_15: { before: loadAverageBefore, after: loadAverageAfter },
  };
}
type Load = Awaited<ReturnType<typeof load>>;

/** Citetrace's figure over the peer's, for the figures that say what a refusal costs. */
function sideBySide(citetrace: readonly Load[], bare: readonly Load[]) {
  const pick = (runs: readonly Load[], at: (l: Load) => number | undefined): (number | null)[] => runs.map((l) => at(l) ?? null);
  const row = (at: (l: Load) => number | undefined) => {
    const c = pick(citetrace, at);
    const p = pick(bare, at);
    const median = (xs: readonly (number | null)[]): number | null => {
      const v = xs.filter((x): x is number => x !== null);
      return v.length === 0 ? null : percentile(v, 50);
    };
    const mc = median(c);
    const mp = median(p);
    return { citetrace_ms: c, peer_ms: p, ratio_of_medians: mc === null || mp === null || mp === 0 ? null : Number((mc / mp).toFixed(2)) };
  };
  return {
    round1_refused_p50: row((l) => l.refused_latency_by_round[0]?.p50_ms),
    round1_refused_p99: row((l) => l.refused_latency_by_round[0]?.p99_ms),
    round1_refused_max: row((l) => l.refused_latency_by_round[0]?.max_ms),
    round1_client_connected_p99: row((l) => l.round1_client_connected?.p99_ms),
    round1_server_accepted_p99: row((l) => l.round1_server_accepted?.p99_ms),
    round1_server_first_request_after_accept_p99: row((l) => l.round1_server_first_request_after_accept?.p99_ms),
    steady_refused_p50: row((l) => l.refused_latency_steady?.p50_ms),
    steady_refused_p99: row((l) => l.refused_latency_steady?.p99_ms),
    all_refused_p99: row((l) => l.refused_latency?.p99_ms),
    server_loop_utilization_mean: { citetrace: citetrace.map((l) => l.server_loop_utilization_mean), peer: bare.map((l) => l.server_loop_utilization_mean) },
    server_cpu_ms_per_request: row((l) => l.server_cpu_ms_per_request),
    client_loop_stall_max_ms: { citetrace: citetrace.map((l) => l.client_loop_stall_ms.max), peer: bare.map((l) => l.client_loop_stall_ms.max) },
  };
}

async function main(): Promise<void> {
  if (PEER !== undefined && PEER !== 'bare') throw new Error(`--peer ${PEER}: the only peer is "bare"`);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-overload-'));
  const env = { ...process.env };
  const maxInflight = flag('max-inflight');
  const maxQueue = flag('max-queue');
  if (maxInflight !== undefined) env.CITETRACE_MAX_INFLIGHT = maxInflight;
  if (maxQueue !== undefined) env.CITETRACE_MAX_QUEUE = maxQueue;
  const citetrace = await startChild(['server', dataDir, ...(REFUSE_ALL ? ['--refuse-all'] : [])], env);
  const bare = PEER === undefined ? null : await startChild(['peer'], env);
  try {
    // Warm up: every question through the whole pipeline, four at a time.
    const warm = new http.Agent({ keepAlive: true });
    for (let i = 0; i < 3; i += 1) await Promise.all(QUESTIONS.map((q) => ask(warm, citetrace.ready.port, citetrace.ready.key, q)));
    if (bare !== null) await Promise.all(QUESTIONS.map((q) => ask(warm, bare.ready.port, bare.ready.key, q)));
    warm.destroy();
    const common = {
      clients: CLIENTS,
      refuse_all: REFUSE_ALL,
      peer_busy_ms: PEER_BUSY_MS,
      rounds: ROUNDS,
      honours_retry_after: !IGNORE_RETRY_AFTER,
      limits: citetrace.ready.limits,
      cpus: os.cpus().length,
      node: process.version,
    };
    const out = fileURLToPath(new URL('./results/', import.meta.url));
    await mkdir(out, { recursive: true });
    if (bare === null) {
      const result = { ...common, ...(await load(citetrace, { metrics: true })) };
      console.log(JSON.stringify(result, null, 2));
      await writeFile(path.join(out, `overload${IGNORE_RETRY_AFTER ? '-ignore-retry-after' : ''}.json`), `${JSON.stringify(result, null, 2)}\n`);
      return;
    }
    const citetraceRuns: Load[] = [];
    const peerRuns: Load[] = [];
    const order: string[] = [];
    let peerRetryAfter = PEER_RETRY_AFTER ?? '1';
    const runCitetrace = async (): Promise<void> => {
      const run = await load(citetrace, { metrics: true });
      citetraceRuns.push(run);
      order.push('citetrace');
      if (PEER_RETRY_AFTER === undefined && run.retry_after_s !== null) peerRetryAfter = String(Math.max(1, Math.round(run.retry_after_s.median)));
    };
    const runPeer = async (): Promise<void> => {
      bare.process.send({ retryAfter: peerRetryAfter, busyMs: PEER_BUSY_MS });
      peerRuns.push(await load(bare, { metrics: false }));
      bare.process.send({ busyMs: 0 });
      order.push(`peer (Retry-After ${peerRetryAfter}${PEER_BUSY_MS > 0 ? `, loop busy ${String(PEER_BUSY_MS)} ms at a time` : ''})`);
    };
    for (let r = 0; r < REPEAT; r += 1) {
      if (r % 2 === 0) {
        await runCitetrace();
        await runPeer();
      } else {
        await runPeer();
        await runCitetrace();
      }
    }
    const result = { ...common, order, side_by_side: sideBySide(citetraceRuns, peerRuns), citetrace: citetraceRuns, peer_bare: peerRuns };
    console.log(JSON.stringify(result, null, 2));
    await writeFile(path.join(out, `overload-peer${REFUSE_ALL ? '-refuse-all' : ''}${PEER_BUSY_MS > 0 ? '-busy' : ''}.json`), `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await Promise.all([citetrace, ...(bare === null ? [] : [bare])].map(stopChild));
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'server') await server(process.argv[3] ?? '');
else if (process.argv[2] === 'peer') await peer();
else await main();
