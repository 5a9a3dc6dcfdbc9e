/**
 * Whole-process start-up of the compiled CLI (bin/citetrace.js -> dist/): `citetrace --help`, and a
 * cold `citetrace ask` (a new process each time; the embedding model already cached, an index of
 * the demo corpus already ingested). Median of 5 runs each, next to a bare `node -e 0` timed in the
 * same run, so the ratio holds across machines. Peak RSS from /usr/bin/time where it exists.
 * Needs dist/ (npm ci or npm run build). Writes bench/results/cli-startup.json.
 * Run: npm run bench:startup   (or: npx tsx bench/cli-startup.ts)
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'citetrace.js');
const RUNS = 5;
const TIME = '/usr/bin/time';
const QUESTION = 'Can I get blood drawn at the Harbor lab without an appointment?';

interface Sample {
  readonly ms: number;
  readonly rssMiB: number | null;
}

/** One process, start to exit, in milliseconds (and its peak RSS when /usr/bin/time is there). */
function run(args: readonly string[], env: NodeJS.ProcessEnv): Sample {
  const withTime = existsSync(TIME);
  const [cmd, argv] = withTime ? [TIME, ['-f', '%M', process.execPath, ...args]] : [process.execPath, [...args]];
  const start = process.hrtime.bigint();
  const child = spawnSync(cmd, argv, { cwd: ROOT, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (child.status !== 0) throw new Error(`${args.join(' ')} exited ${String(child.status)}: ${child.stderr}`);
  const kib = withTime ? Number(child.stderr.trim().split('\n').at(-1)) : NaN;
  return { ms, rssMiB: Number.isFinite(kib) ? kib / 1024 : null };
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function measure(label: string, args: readonly string[], env: NodeJS.ProcessEnv): { label: string; median_ms: number; runs_ms: number[]; rss_mib: number | null } {
  run(args, env); // one unrecorded run: the OS file cache is warm for every recorded one
  const samples = Array.from({ length: RUNS }, () => run(args, env));
  const rss = samples.map((s) => s.rssMiB).filter((x): x is number => x !== null);
  return { label, median_ms: median(samples.map((s) => s.ms)), runs_ms: samples.map((s) => Math.round(s.ms)), rss_mib: rss.length ? Math.round(median(rss)) : null };
}

if (!existsSync(path.join(ROOT, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: run npm ci or npm run build first');
  process.exit(1);
}

const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'citetrace-startup-')), 'data');
try {
  const env = { ...process.env, CITETRACE_DATA: dataDir };
  // Set-up, not timed: the model is provisioned into its cache and the demo corpus ingested.
  run([BIN, '--init', 'ingest', 'corpus'], env);

  const node = measure('node -e 0', ['-e', '0'], env);
  const help = measure('citetrace --help', [BIN, '--help'], env);
  const ask = measure('citetrace ask (cold process)', [BIN, 'ask', QUESTION], env);
  const result = {
    machine: `${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`,
    runs: RUNS,
    node,
    help: { ...help, ratio_to_node: help.median_ms / node.median_ms },
    ask: { ...ask, ratio_to_node: ask.median_ms / node.median_ms },
  };
  console.log(`citetrace CLI start-up, whole process, median of ${RUNS} (${result.machine})`);
  for (const r of [result.node, result.help, result.ask]) {
    const ratio = r === result.node ? '' : ` (${(r.median_ms / node.median_ms).toFixed(1)}x node -e 0)`;
    console.log(`  ${r.label.padEnd(30)} ${r.median_ms.toFixed(0).padStart(6)} ms${ratio}${r.rss_mib === null ? '' : `, peak RSS ${r.rss_mib} MiB`}  runs ${r.runs_ms.join(' ')}`);
  }
  console.log(`  goals: --help <= 4x node -e 0 (${result.help.ratio_to_node <= 4 ? 'met' : 'MISSED'}), ask <= 1000 ms (${ask.median_ms <= 1000 ? 'met' : 'MISSED'})`);
  const out = path.join(ROOT, 'bench', 'results');
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'cli-startup.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await rm(path.dirname(dataDir), { recursive: true, force: true });
}
