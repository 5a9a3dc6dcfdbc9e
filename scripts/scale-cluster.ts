import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { createSqliteKeyStore } from '../src/auth/index.js';
import { createS3Location, readManifest, type IndexLocation, type Manifest } from '../src/index-store/index.js';
import { createPostgresTraceStore } from '../src/trace/index.js';

/**
 * A scale-out deployment on this machine, for test/scale and bench/scale-out.ts: an S3-compatible
 * object store (s3rver, from npm), a PostgreSQL database, one `citetrace watch` ingester and
 * `citetrace serve` instances, each a separate process running the built CLI, as in production.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = path.join(ROOT, 'bin', 'citetrace.js');
export const DEMO_CORPUS = path.join(ROOT, 'corpus');
const BUCKET = 'citetrace';
/** s3rver's built-in credentials. */
export const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' } as const;

/**
 * Poll until `check` gives a value (not undefined or false), or fail after `ms`; a check that throws counts as not yet.
 * `what` names what was awaited; as a function it is read at the failure, so it can carry what a process said by then.
 */
export async function until<T>(check: () => Promise<T | undefined | false>, ms: number, what: string | (() => string)): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`not within ${ms} ms: ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface ObjectStore {
  readonly endpoint: string;
  /** Stop answering (an outage), and come back on the same port with the same objects. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startObjectStore(dir: string): Promise<ObjectStore> {
  let server: S3rver | null = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: BUCKET }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      await server?.close();
      server = null;
    },
    async start() {
      server = new S3rver({ address: '127.0.0.1', port, directory: dir, silent: true });
      await server.run();
    },
  };
}

/**
 * The watcher's way to the object store: a pass-through HTTP proxy that a test can tell to hold
 * one request (never forward it, never answer it), so that a process can be killed at a known
 * point of a commit instead of at a moment a poll happens to catch.
 */
export interface ObjectStoreLink {
  readonly endpoint: string;
  /** Hold the next request with this method whose path matches; `arrived` says whether it came. */
  holdNext(method: string, path: RegExp): { readonly arrived: () => boolean };
  close(): Promise<void>;
}

export async function startObjectStoreLink(target: string): Promise<ObjectStoreLink> {
  const to = new URL(target);
  let trap: { readonly method: string; readonly path: RegExp; arrived: boolean } | null = null;
  const server = http.createServer((req, res) => {
    if (trap !== null && req.method === trap.method && trap.path.test(req.url ?? '')) {
      trap.arrived = true;
      trap = null;
      req.resume();
      return;
    }
    const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the object store link has no port');
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    holdNext(method, path) {
      const armed = { method, path, arrived: false };
      trap = armed;
      return { arrived: () => armed.arrived };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => { resolve(); }));
    },
  };
}

/** A child process running the CLI, its output kept. */
export interface CliProcess {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout or stderr; rejects when the process exits first or after `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpMatchArray>;
}

export function runCli(args: readonly string[], env: Readonly<Record<string, string>>): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const l of listeners) l();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const l of listeners) l();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, ms = 120_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(out) ?? pattern.exec(err);
          if (match !== null) done(() => { resolve(match); });
        };
        const timer = setTimeout(() => { done(() => { reject(new Error(`no ${pattern} within ${ms} ms; stderr: ${err.slice(-2000)}`)); }); }, ms);
        const done = (then: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          then();
        };
        listeners.add(check);
        void exited.then((code) => { done(() => { reject(new Error(`exited ${code} before ${pattern}; stderr: ${err.slice(-2000)}`)); }); });
        check();
      });
    },
  };
}

export interface Instance {
  readonly url: string;
  readonly process: CliProcess;
}

export interface Cluster {
  /** Environment every process of the deployment shares: the index on object storage, the trace store, the keys. */
  readonly env: Readonly<Record<string, string>>;
  readonly store: ObjectStore;
  /** The watcher reaches the object store through this link. */
  readonly watcherLink: ObjectStoreLink;
  /** The policy repository the watcher follows (a copy of the demo corpus). */
  readonly corpus: string;
  readonly patientKey: string;
  readonly operatorKey: string;
  readonly index: IndexLocation;
  instances: Instance[];
  watcher: CliProcess | null;
  /** The committed manifest on object storage. */
  manifest(): Promise<Manifest>;
  startWatcher(): Promise<CliProcess>;
  startInstance(): Promise<Instance>;
  ask(instance: Instance, question: string, asOf: string): Promise<{ readonly status: number; readonly body: AskBody }>;
  /** Kill every process of the deployment (SIGTERM), leaving the object store and database. */
  close(): Promise<void>;
}

export interface AskBody {
  readonly trace_id: string;
  readonly outcome: string;
  readonly answer: string;
  readonly citations: readonly { readonly source_id: string; readonly revision: string; readonly version: string | null; readonly text: string }[];
}

/**
 * A fresh database in the PostgreSQL server at `url` (a superuser), set up as docs/operations.md
 * says: an owner role that migrates, a service role that may only append and read, the store in
 * its own schema. Returns the service role's URL: the deployment's one trace store.
 */
export async function createTraceDatabase(url: string): Promise<string> {
  const { default: postgres } = await import('pg');
  const name = `scale_${randomBytes(4).toString('hex')}`;
  const as = (role: string, database: string): string => {
    const next = new URL(url);
    next.username = role;
    next.password = `pw-${role}`;
    next.pathname = `/${database}`;
    next.searchParams.set('options', '-c search_path=citetrace');
    return next.toString();
  };
  const admin = new postgres.Client({ connectionString: url });
  await admin.connect();
  try {
    for (const role of [`${name}_owner`, `${name}_svc`]) await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pw-${role}'`);
    await admin.query(`CREATE DATABASE ${name} OWNER ${name}_owner`);
  } finally {
    await admin.end();
  }
  const owner = new postgres.Client({ connectionString: as(`${name}_owner`, name) });
  await owner.connect();
  try {
    await owner.query('CREATE SCHEMA citetrace');
  } finally {
    await owner.end();
  }
  for (const args of [['db', 'migrate'], ['db', 'grant', `${name}_svc`]]) {
    const run = runCli(args, { CITETRACE_TRACES: as(`${name}_owner`, name) });
    if ((await run.exited) !== 0) throw new Error(`citetrace ${args.join(' ')}: ${run.stderr()}`);
  }
  return as(`${name}_svc`, name);
}

/**
 * Start the deployment in `dir`: object store, corpus, keys, the watcher (its first ingest
 * committed) and `instances` serving instances.
 */
export async function startCluster(options: { readonly dir: string; readonly postgresUrl: string; readonly instances: number; readonly env?: Readonly<Record<string, string>> }): Promise<Cluster> {
  const { dir } = options;
  const store = await startObjectStore(path.join(dir, 's3'));
  const watcherLink = await startObjectStoreLink(store.endpoint);
  const corpus = path.join(dir, 'corpus');
  await cp(DEMO_CORPUS, corpus, { recursive: true });
  const keysFile = path.join(dir, 'keys.sqlite');
  const keys = createSqliteKeyStore({ file: keysFile });
  const patientKey = keys.create({ role: 'patient', label: 'scale patient' }).key;
  const operatorKey = keys.create({ role: 'operator', label: 'scale operator' }).key;
  keys.close();
  const env: Record<string, string> = {
    CITETRACE_INDEX: `s3://${BUCKET}/deployment`,
    AWS_ENDPOINT_URL: store.endpoint,
    AWS_REGION: 'us-east-1',
    ...S3_CREDENTIALS,
    CITETRACE_TRACES: await createTraceDatabase(options.postgresUrl),
    CITETRACE_KEYS: keysFile,
    CITETRACE_RATE_LIMIT: '1000000',
    ...options.env,
  };
  const index = createS3Location({ uri: env.CITETRACE_INDEX ?? '', endpoint: store.endpoint, region: 'us-east-1', accessKeyId: S3_CREDENTIALS.AWS_ACCESS_KEY_ID, secretAccessKey: S3_CREDENTIALS.AWS_SECRET_ACCESS_KEY });
  let serial = 0;
  /** Each process its own data folder: its copy of the index, nothing shared. */
  const ownData = async (name: string): Promise<string> => {
    const data = path.join(dir, `${name}-${(serial += 1)}`);
    await mkdir(data, { recursive: true });
    return data;
  };
  const cluster: Cluster = {
    env,
    store,
    watcherLink,
    corpus,
    patientKey,
    operatorKey,
    index,
    instances: [],
    watcher: null,
    async manifest() {
      const manifest = await readManifest(index);
      if (manifest === null) throw new Error('no manifest on object storage');
      return manifest;
    },
    async startWatcher() {
      const watcher = runCli(['watch', corpus], { ...env, AWS_ENDPOINT_URL: watcherLink.endpoint, CITETRACE_DATA: await ownData('watcher') });
      await watcher.waitFor(/watching /u);
      cluster.watcher = watcher;
      return watcher;
    },
    async startInstance() {
      const proc = runCli(['serve', '--port', '0'], { ...env, CITETRACE_DATA: await ownData('instance') });
      const [, url] = await proc.waitFor(/citetrace serving (http:\/\/\S+)/u);
      const instance = { url: url ?? '', process: proc };
      cluster.instances.push(instance);
      return instance;
    },
    async ask(instance, question, asOf) {
      const response = await fetch(`${instance.url}/v1/ask`, {
        method: 'POST',
        headers: { authorization: `Bearer ${patientKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ question, as_of: asOf }),
      });
      return { status: response.status, body: (await response.json()) as AskBody };
    },
    async close() {
      const all = [...cluster.instances.map((i) => i.process), ...(cluster.watcher === null ? [] : [cluster.watcher])];
      for (const p of all) p.child.kill('SIGTERM');
      await Promise.all(all.map((p) => p.exited));
      await watcherLink.close();
      await store.stop();
    },
  };
  await cluster.startWatcher();
  await Promise.all(Array.from({ length: options.instances }, () => cluster.startInstance()));
  return cluster;
}

export const NO_SHOW_QUESTION = 'How much is the no-show fee?';
const NO_SHOW_POLICY = path.join('scheduling', 'cancellation-no-show.md');

/**
 * Publish a new revision of the no-show policy (its version and effective date `version`, its
 * primary-care fee `fee`) the way a policy owner does: edit the file the watcher follows. Resolves
 * once every instance answers `asOf` with the new revision: the commit, each instance's answer,
 * and the time from the commit to it in ms (the commit moment is bounded by the last look at the
 * object store that still saw the previous manifest, so delays are upper bounds).
 */
export async function publishRevision(cluster: Cluster, options: { readonly version: string; readonly fee: string; readonly asOf: string }): Promise<{ readonly manifest: Manifest; readonly answers: readonly { readonly body: AskBody; readonly delayMs: number }[] }> {
  const before = await cluster.manifest();
  const file = path.join(cluster.corpus, NO_SHOW_POLICY);
  const text = await readFile(file, 'utf8');
  await writeFile(file, text.replace(/^(version|effective_date): .*$/gmu, `$1: ${options.version}`).replace(/\$\d+ no-show fee for a missed primary/u, `${options.fee} no-show fee for a missed primary`));
  let lastOld = performance.now();
  const manifest = await until(
    async () => {
      const now = performance.now();
      const current = await cluster.manifest();
      if (current.seq === before.seq) lastOld = now;
      return current.seq > before.seq && current;
    },
    120_000,
    'the watcher commits the edit',
  );
  const answers = await Promise.all(
    cluster.instances.map(async (instance) => {
      const body = await until(
        async () => {
          const { status, body } = await cluster.ask(instance, NO_SHOW_QUESTION, options.asOf);
          return status === 200 && body.citations.some((c) => c.version === options.version) && body;
        },
        30_000,
        `${instance.url} answers with revision ${options.version}`,
      );
      return { body, delayMs: performance.now() - lastOld };
    }),
  );
  return { manifest, answers };
}

/**
 * Keep `clients` clients asking one instance until `after` answers were acknowledged (HTTP 200),
 * then kill it with SIGKILL while they keep asking; answers cut off by the kill were never
 * acknowledged. Resolves with the acknowledged trace ids missing from the trace store (must be
 * none). The killed instance is replaced by a new one.
 */
export async function killUnderLoad(cluster: Cluster, options: { readonly instance: number; readonly clients: number; readonly after: number; readonly asOf: string }): Promise<{ readonly acknowledged: number; readonly missing: readonly string[] }> {
  const victim = cluster.instances[options.instance];
  if (victim === undefined) throw new Error(`no instance ${options.instance}`);
  const acknowledged: string[] = [];
  let stop = false;
  const clients = Array.from({ length: options.clients }, async () => {
    while (!stop) {
      try {
        const { status, body } = await cluster.ask(victim, NO_SHOW_QUESTION, options.asOf);
        if (status === 200) acknowledged.push(body.trace_id);
      } catch {
        return; // the connection died with the instance
      }
    }
  });
  await until(() => Promise.resolve(acknowledged.length >= options.after), 60_000, 'answers under load');
  victim.process.child.kill('SIGKILL');
  stop = true;
  await Promise.all(clients);
  await victim.process.exited;
  cluster.instances.splice(options.instance, 1);
  const store = await createPostgresTraceStore({ url: cluster.env.CITETRACE_TRACES ?? '', migrate: false });
  const missing: string[] = [];
  try {
    for (const id of acknowledged) if ((await store.get(id)) === null) missing.push(id);
  } finally {
    await store.close();
  }
  await cluster.startInstance();
  return { acknowledged: acknowledged.length, missing };
}
