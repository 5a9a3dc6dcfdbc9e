import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { intArg, parseAge, parseDate, parseShare } from './args.js';
import type { Config } from '../config/index.js';
import { CitetraceError, ROUTING_REASONS } from '../domain/index.js';
import type { EvalMetrics } from '../eval/index.js';
import { progressBar } from './progress.js';
import { registerVerifyCommands } from './verify-commands.js';

// Loaded by the command that runs, not at start-up (see program.ts).
const evaluation = () => import('../eval/index.js');
const main = () => import('../main.js');

export interface AuditIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly isTty: boolean;
  /** Configuration of a command that reads the index: the data folder must exist. */
  readonly config: () => Config;
  /** Configuration of a command that uses only the trace store. */
  readonly traceConfig: () => Config;
  /** One line of progress on stderr. */
  readonly progress: (message: string) => void;
}

const share = parseShare;
const count = intArg(0, Number.MAX_SAFE_INTEGER, 'a whole number');
const date = parseDate;
/** The base URL of a citetrace service (its console is under /console): http or https, no query or fragment. */
const consoleUrl = (value: string): string => {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '') {
    throw new InvalidArgumentError('expected the http(s) URL of a citetrace service, e.g. http://127.0.0.1:8080');
  }
  return `${url.origin}${url.pathname.replace(/\/*$/u, '').replace(/\/console$/u, '')}`;
};
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

interface Gates {
  minAccuracy?: number;
  maxUnsupported?: number;
  maxWrongAbstentions?: number;
  minRecall5?: number;
  minCitationPrecision?: number;
  minCitationRecall?: number;
}

/** Every threshold given on the command line that the metrics miss, as one line each. */
export function missedGates(m: EvalMetrics, gates: Gates): string[] {
  const checks: [number | undefined, number, 'min' | 'max', string][] = [
    [gates.minAccuracy, m.outcomes.accuracy, 'min', 'outcome accuracy'],
    [gates.maxUnsupported, m.outcomes.unsupportedAnswers.length, 'max', 'unsupported answers'],
    [gates.maxWrongAbstentions, m.outcomes.wrongAbstentions.length, 'max', 'wrong abstentions'],
    [gates.minRecall5, m.retrieval.recallAt['5'], 'min', 'recall@5'],
    [gates.minCitationPrecision, m.generation.citationPrecision, 'min', 'citation precision'],
    [gates.minCitationRecall, m.generation.citationRecall, 'min', 'citation recall'],
  ];
  return checks
    .filter(([limit, value, kind]) => limit !== undefined && (kind === 'min' ? value < limit : value > limit))
    .map(([limit, value, kind, name]) => `${name} ${Number.isInteger(value) ? value : value.toFixed(3)} is ${kind === 'min' ? 'below' : 'above'} ${String(limit)}`);
}

function summary(m: EvalMetrics, passed: number): string {
  const lines = [
    `cases ${m.cases} · passed ${passed} · k ${m.k}`,
    `outcome accuracy      ${pct(m.outcomes.accuracy)}`,
    `unsupported answers   ${m.outcomes.unsupportedAnswers.length}${m.outcomes.unsupportedAnswers.length ? ` (${m.outcomes.unsupportedAnswers.join(', ')})` : ''}`,
    `wrong abstentions     ${m.outcomes.wrongAbstentions.length}${m.outcomes.wrongAbstentions.length ? ` (${m.outcomes.wrongAbstentions.join(', ')})` : ''}`,
    `scope routing         ${ROUTING_REASONS.map((r) => `${r === 'UNSUPPORTED_LANGUAGE' ? 'other language' : r.toLowerCase()} ${m.routing.confusion.out_of_scope[r] ?? 0}`).join(', ')} of ${m.outcomes.confusion.out_of_scope ? Object.values(m.outcomes.confusion.out_of_scope).reduce((a, b) => a + b, 0) : 0} expected out of scope; not routed ${m.routing.notRouted.length}${m.routing.notRouted.length ? ` (${m.routing.notRouted.join(', ')})` : ''}; in scope routed away ${m.routing.routedAway.length}${m.routing.routedAway.length ? ` (${m.routing.routedAway.join(', ')})` : ''}`,
    `recall@1/3/5          ${pct(m.retrieval.recallAt['1'])} / ${pct(m.retrieval.recallAt['3'])} / ${pct(m.retrieval.recallAt['5'])} · MRR ${m.retrieval.mrr.toFixed(3)}`,
    `citation precision    ${pct(m.generation.citationPrecision)} · recall ${pct(m.generation.citationRecall)} · resolution ${pct(m.generation.citationResolutionRate)}`,
    `latency p50/p95       ${m.latencyMs.p50.toFixed(1)} / ${m.latencyMs.p95.toFixed(1)} ms`,
  ];
  for (const p of m.sweep) {
    lines.push(`k=${p.k}: accuracy ${pct(p.accuracy)}, coverage ${pct(p.citationCoverage)}, unsupported ${p.unsupportedAnswers}, p95 ${p.latencyMs.p95.toFixed(1)} ms`);
  }
  if (m.sweep.length > 0) lines.push(`smallest k meeting the goals: ${m.smallestGoodK ?? 'none'}`);
  return `${lines.join('\n')}\n`;
}

export function registerAuditCommands(program: Command, io: AuditIo): void {
  program
    .command('eval')
    .description('run evaluation cases through the ask pipeline, persist the traces, write a report')
    .argument('<cases>', 'cases YAML (contract section 5)')
    .addOption(new Option('--as-of <date>', 'as_of for cases that set none').argParser(date))
    .option('--json <file>', 'write the JSON report')
    .option('--html <file>', 'write a self-contained HTML report')
    .addOption(
      new Option('--console-url <url>', "link each failure in the HTML report to its trace in this service's console (e.g. http://127.0.0.1:8080); without it the report embeds each failure's trace summary").argParser(
        consoleUrl,
      ),
    )
    .option('--sweep', 'also run the context-budget sweep k = 1..8')
    .addOption(new Option('--min-accuracy <x>').argParser(share))
    .addOption(new Option('--max-unsupported <n>').argParser(count))
    .addOption(new Option('--max-wrong-abstentions <n>').argParser(count))
    .addOption(new Option('--min-recall5 <x>').argParser(share))
    .addOption(new Option('--min-citation-precision <x>').argParser(share))
    .addOption(new Option('--min-citation-recall <x>').argParser(share))
    .action(async (file: string, opts: Gates & { asOf?: string; json?: string; html?: string; consoleUrl?: string; sweep?: boolean }) => {
      const [{ readCases, renderHtmlReport, runEval }, { openRuntime }] = await Promise.all([evaluation(), main()]);
      const cases = await readCases(file);
      const config = io.config();
      const runtime = await openRuntime({ config, onProgress: io.progress });
      try {
        const report = await runEval({
          cases,
          k: config.k,
          assistantFor: (k) => runtime.assistantWith({ k }),
          revisions: runtime.index.revisions,
          asOf: opts.asOf,
          sweep: opts.sweep === true ? [1, 2, 3, 4, 5, 6, 7, 8] : [],
          onProgress: progressBar(io.err, 'eval', io.isTty),
        });
        if (opts.json !== undefined) await writeFile(opts.json, `${JSON.stringify(report, null, 2)}\n`);
        if (opts.html !== undefined) await writeFile(opts.html, renderHtmlReport(report, opts.consoleUrl === undefined ? {} : { consoleUrl: opts.consoleUrl }));
        io.out(summary(report.metrics, report.cases.filter((c) => c.passed).length));
        const missed = missedGates(report.metrics, opts);
        if (missed.length > 0) throw new CitetraceError('GATE_FAILED', `eval gate missed: ${missed.join('; ')}`);
      } finally {
        await runtime.close();
      }
    });

  registerVerifyCommands(program, io);

  program
    .command('purge')
    .description('retention: remove question and answer payloads of old traces, keeping their hash-chain links')
    .requiredOption('--older-than <age>', 'age such as 180d or 26w', parseAge)
    .action(async (opts: { olderThan: number }) => {
      const now = new Date();
      const before = new Date(now.getTime() - opts.olderThan).toISOString();
      const config = io.traceConfig();
      const { createTraceStore } = await main();
      const store = await createTraceStore(config, { existing: true });
      try {
        const { purged } = await store.purge({ before, now });
        io.out(`purged ${purged} trace(s) created before ${before}; the purge is recorded and the chain still verifies\n`);
      } finally {
        await store.close();
      }
    });

  program
    .command('replay')
    .description('re-run stored questions (same role and as_of) under the current index and configuration')
    .addOption(new Option('--limit <n>', 'replay at most n traces, oldest first').argParser(count))
    .option('--fail-on-change', 'exit 3 when any replayed trace differs')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { limit?: number; failOnChange?: boolean; json?: boolean }) => {
      const config = io.config();
      const [{ replayTraces }, { openRuntime }, { createSqliteTraceStore }] = await Promise.all([evaluation(), main(), import('../trace/index.js')]);
      const runtime = await openRuntime({ config, onProgress: io.progress });
      // Replays persist into a scratch store: a replay never adds to the audit record it reads.
      const scratch = createSqliteTraceStore({ file: ':memory:' });
      try {
        const report = await replayTraces({
          store: runtime.store,
          assistant: runtime.assistantWith({ store: scratch }),
          ...(opts.limit === undefined ? {} : { limit: opts.limit }),
        });
        if (opts.json === true) io.out(`${JSON.stringify(report, null, 2)}\n`);
        else {
          for (const d of report.differences) io.out(`CHANGED ${d.traceId}: ${d.changes.join(', ')} · ${d.query}\n`);
          io.out(
            `replayed ${report.replayed}: ${report.unchanged} unchanged, retrieval changed ${report.retrievalChanged}, outcome changed ${report.outcomeChanged}, citations changed ${report.citationsChanged}\n`,
          );
        }
        if (opts.failOnChange === true && report.differences.length > 0) throw new CitetraceError('GATE_FAILED', `${report.differences.length} replayed trace(s) changed`);
      } finally {
        await scratch.close();
        await runtime.close();
      }
    });
}
