/**
 * Generators side by side on the same questions, through the product's own CLI (`citetrace eval`
 * on a fresh index): the extractive generator, the pinned SmolLM2-135M-Instruct run in-process
 * under the reply grammar (`--llm smollm2`), and any GGUF a user names. Every case that expects
 * an answer, on the dev set and on any policy sets given. Prints and writes
 * bench/results/llm.json (each eval report beside it, in llm.json.d/): structurally valid model outputs, answers shown, answers the model
 * wrote vs fallbacks to the extractive answer, answer pass, answers shown that fail the case
 * (a missing fact, a forbidden phrase, a wrong source), and generation time per question.
 *
 *   npx tsx bench/llm/run.ts [--set corpus:corpus/cases.yaml] [--set DIR/corpus:DIR/cases.yaml ...]
 *                            [--model FILE.gguf ...] [--limit N] [--as-of 2026-12-03]
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';
import type { Trace } from '../../src/domain/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: args } = parseArgs({
  options: {
    set: { type: 'string', multiple: true, default: ['corpus:corpus/cases.yaml'] },
    model: { type: 'string', multiple: true, default: [] },
    limit: { type: 'string' },
    'as-of': { type: 'string', default: '2026-12-03' },
    out: { type: 'string', default: path.join(root, 'bench', 'results', 'llm.json') },
  },
});

interface EvalCase {
  id: string;
  expect: string;
  actual: string;
  passed: boolean;
  failures: string[];
  trace: Trace;
}

function cli(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'citetrace.js'), ...argv], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || code === 3) resolve();
      else reject(new Error(`citetrace ${argv.join(' ')} exited ${String(code)}: ${stderr.trim().split('\n').at(-1) ?? ''}`));
    });
  });
}

const quantile = (values: readonly number[], q: number): number | null => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null;
};

/** A case's failure that concerns what an answer says or cites, not its outcome. */
const CONTENT_FAILURE = /^(missing fact|says "|no citation of|cites forbidden)/u;
/** An attempt whose output was not the reply the schema allows. */
const MALFORMED = /not JSON|does not follow the schema|empty sentences/u;

function summarize(cases: readonly EvalCase[]): Record<string, unknown> {
  const traces = cases.map((c) => c.trace);
  const modelAttempts = traces.flatMap((t) => (t.generation?.attempts ?? []).filter((a) => a.mode !== undefined));
  const malformed = traces.filter((t) => [...t.rejected.map((r) => r.detail), t.generation?.fallback?.detail ?? '', t.detail ?? ''].some((d) => MALFORMED.test(d))).length;
  const reached = traces.filter((t) => (t.generation?.attempts.length ?? 0) > 0);
  const shown = cases.filter((c) => c.actual === 'answer');
  const fallbacks = shown.filter((c) => c.trace.generation?.fallback !== undefined);
  const generationMs = reached.map((t) => (t.generation?.attempts ?? []).reduce((sum, a) => sum + a.latency_ms, 0));
  return {
    cases: cases.length,
    reached_the_model: modelAttempts.length === 0 ? null : reached.length,
    model_attempts: modelAttempts.length,
    questions_with_a_malformed_output: modelAttempts.length === 0 ? null : malformed,
    answers_shown: shown.length,
    written_by_the_model: modelAttempts.length === 0 ? null : shown.length - fallbacks.length,
    fallbacks_to_extractive: modelAttempts.length === 0 ? null : fallbacks.length,
    model_abstained: traces.filter((t) => t.outcome === 'abstain' && /the model abstained/u.test(t.detail ?? '')).length,
    answer_pass: cases.filter((c) => c.passed).length,
    shown_but_failing_the_case: shown.filter((c) => c.failures.some((f) => CONTENT_FAILURE.test(f))).map((c) => c.id),
    generation_ms_per_question: { p50: quantile(generationMs, 0.5), p95: quantile(generationMs, 0.95) },
    ms_per_model_attempt: { p50: quantile(modelAttempts.map((a) => a.latency_ms), 0.5), p95: quantile(modelAttempts.map((a) => a.latency_ms), 0.95) },
  };
}

const work = await mkdtemp(path.join(os.tmpdir(), 'citetrace-bench-llm-'));
const generators: [string, string[]][] = [['extractive', []], ['smollm2', ['--llm', 'smollm2']], ...args.model.map((m): [string, string[]] => [path.basename(m), ['--llm', m]])];
const results: Record<string, Record<string, unknown>> = {};
try {
  for (const spec of args.set) {
    const [corpus, casesFile] = spec.split(':');
    if (corpus === undefined || casesFile === undefined) throw new Error(`--set ${spec}: expected CORPUS_DIR:CASES.yaml`);
    const all = parse(await readFile(casesFile, 'utf8')) as { expect: string }[];
    let answerable = all.filter((c) => c.expect === 'answer');
    if (args.limit !== undefined) answerable = answerable.filter((_, i) => i % Math.ceil(answerable.length / Number(args.limit)) === 0);
    const dir = path.join(work, String(Object.keys(results).length));
    await mkdir(dir, { recursive: true });
    const cases = path.join(dir, 'cases.yaml');
    await writeFile(cases, stringify(answerable));
    const data = path.join(dir, 'data');
    await cli(['--data', data, '--init', 'ingest', corpus], process.env);
    const perGenerator: Record<string, unknown> = {};
    for (const [name, flags] of generators) {
      const out = path.join(`${args.out}.d`, `${Object.keys(results).length}-${name}.json`);
      await mkdir(path.dirname(out), { recursive: true });
      await cli(['--data', data, ...flags, 'eval', cases, '--as-of', args['as-of'], '--json', out], { ...process.env, CITETRACE_TRACES: path.join(dir, `${name}.sqlite`) });
      const report = JSON.parse(await readFile(out, 'utf8')) as { cases: EvalCase[] };
      perGenerator[name] = summarize(report.cases);
      console.log(`${casesFile} · ${name}: ${JSON.stringify(perGenerator[name])}`);
    }
    results[casesFile] = perGenerator;
  }
  await mkdir(path.dirname(args.out), { recursive: true });
  await writeFile(args.out, `${JSON.stringify({ machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? ''}, load ${os.loadavg()[0]?.toFixed(1) ?? ''}`, results }, null, 2)}\n`);
  console.log(`wrote ${args.out}`);
} finally {
  await rm(work, { recursive: true, force: true });
}
