/**
 * The dev pool, end to end: every blind system that has had its one run (`test/fixtures/blind-system-N`,
 * a `corpus/`, `cases.yaml` and "Run with `--as-of D`" in its README) ingested into its own data folder
 * and run through `citetrace eval`, then summed: unsupported answers and wrong abstentions first. A
 * developer's tool for measuring an answer-path change before a blind set decides it; nothing runs it in
 * CI, and a set in `blind/` (not yet run) is never read here.
 *
 *   npx tsx scripts/dev-pool.ts run --out DIR [--cache DIR] [--bin PATH] [N ...]
 *     ingest each system once into --cache (default /tmp/citetrace-dev-pool/data; reused while its
 *     manifest exists), run eval with --bin (default bin/citetrace.js, so `npm run build` first), write
 *     DIR/N.json, print the totals
 *   npx tsx scripts/dev-pool.ts compare DIR_A DIR_B [N ...]
 *     per system and in total, A against B, and every case whose outcome or pass changed
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { z } from 'zod';

const root = fileURLToPath(new URL('..', import.meta.url));
const fixtures = path.join(root, 'test', 'fixtures');
const run = promisify(execFile);

const ReportSchema = z.object({
  metrics: z.object({ outcomes: z.object({ unsupportedAnswers: z.array(z.string()), wrongAbstentions: z.array(z.string()) }) }),
  cases: z.array(z.object({ id: z.string(), expect: z.string(), actual: z.string(), passed: z.boolean() })),
});
type Report = z.infer<typeof ReportSchema>;

interface PoolSystem {
  readonly n: string;
  readonly dir: string;
  readonly asOf: string;
}

/**
 * The dev pool as docs/support-judge.md counts it: blind systems 30-37, 44, 45 and 50 on, after their one run (the
 * earlier ones and 38-43, 46-49 were read while the judge was trained and tuned).
 */
const inPool = (n: number): boolean => n >= 30 && !(n >= 38 && n <= 43) && !(n >= 46 && n <= 49);

function poolSystems(only: readonly string[]): PoolSystem[] {
  return readdirSync(fixtures)
    .flatMap((name) => {
      const n = /^blind-system-(\d+)$/u.exec(name)?.[1];
      const dir = path.join(fixtures, name);
      if (n === undefined || (only.length === 0 ? !inPool(Number(n)) : !only.includes(n))) return [];
      // The day its cases assume, as its writer put it in the README ("Run with `--as-of D`", "the as-of date D").
      const asOf = /(?:--as-of|as-of date)\D{0,4}(\d{4}-\d{2}-\d{2})/u.exec(readFileSync(path.join(dir, 'README.md'), 'utf8'))?.[1];
      if (asOf === undefined) throw new Error(`${dir}/README.md names no as-of date`);
      return [{ n, dir, asOf }];
    })
    .sort((a, b) => Number(a.n) - Number(b.n));
}

const option = (args: string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const [value] = args.splice(i, 2).slice(1);
  return value;
};

const reportOf = (file: string): Report => ReportSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
const totalsOf = (r: Report): readonly [number, number, number, number] => [r.metrics.outcomes.unsupportedAnswers.length, r.metrics.outcomes.wrongAbstentions.length, r.cases.filter((c) => c.passed).length, r.cases.length];
const line = (label: string, [u, w, p, n]: readonly number[]): string => `${label.padEnd(8)} unsupported ${String(u).padStart(4)}  wrong abstentions ${String(w).padStart(4)}  passed ${String(p).padStart(5)} / ${n}`;
const add = (a: readonly number[], b: readonly number[]): number[] => a.map((x, i) => x + (b[i] ?? 0));

async function runPool(args: string[]): Promise<void> {
  const out = option(args, '--out');
  if (out === undefined) throw new Error('run needs --out DIR');
  const cache = option(args, '--cache') ?? '/tmp/citetrace-dev-pool/data';
  const bin = path.resolve(option(args, '--bin') ?? path.join(root, 'bin', 'citetrace.js'));
  await mkdir(out, { recursive: true });
  let total = [0, 0, 0, 0];
  for (const s of poolSystems(args)) {
    const data = path.join(cache, s.n);
    const env = { ...process.env, CITETRACE_DATA: data };
    if (!existsSync(path.join(data, 'manifest.json'))) {
      await mkdir(data, { recursive: true });
      await run(process.execPath, [bin, 'ingest', path.join(s.dir, 'corpus')], { env, maxBuffer: 64 << 20 });
    }
    const json = path.join(out, `${s.n}.json`);
    // eval exits non-zero when a case fails; the report is what counts.
    await run(process.execPath, [bin, 'eval', path.join(s.dir, 'cases.yaml'), '--as-of', s.asOf, '--json', json], { env, maxBuffer: 64 << 20 }).catch(() => undefined);
    if (!existsSync(json)) throw new Error(`system ${s.n}: eval wrote no report`);
    const t = totalsOf(reportOf(json));
    total = add(total, t);
    console.log(line(s.n, t));
  }
  console.log(line('total', total));
}

function compare(args: string[]): void {
  const [a, b, ...only] = args;
  if (a === undefined || b === undefined) throw new Error('compare needs two report folders');
  let [ta, tb] = [[0, 0, 0, 0], [0, 0, 0, 0]];
  const changed: string[] = [];
  for (const s of poolSystems(only)) {
    const [fa, fb] = [path.join(a, `${s.n}.json`), path.join(b, `${s.n}.json`)];
    if (!existsSync(fa) || !existsSync(fb)) continue;
    const [ra, rb] = [reportOf(fa), reportOf(fb)];
    [ta, tb] = [add(ta, totalsOf(ra)), add(tb, totalsOf(rb))];
    const before = new Map(ra.cases.map((c) => [c.id, c]));
    for (const c of rb.cases) {
      const old = before.get(c.id);
      if (old !== undefined && (old.actual !== c.actual || old.passed !== c.passed)) {
        changed.push(`${s.n} ${c.id}: expect ${c.expect}, ${old.actual}${old.passed ? ' (pass)' : ''} -> ${c.actual}${c.passed ? ' (pass)' : ''}`);
      }
    }
  }
  console.log(line('A', ta));
  console.log(line('B', tb));
  console.log(`${changed.length} cases changed outcome or pass`);
  for (const c of changed) console.log(`  ${c}`);
}

const [command, ...rest] = process.argv.slice(2);
try {
  if (command === 'run') await runPool(rest);
  else if (command === 'compare') compare(rest);
  else throw new Error('usage: dev-pool.ts run --out DIR [--cache DIR] [--bin PATH] [N ...] | compare DIR_A DIR_B [N ...]');
} catch (error) {
  console.error(`dev-pool: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 2;
}
