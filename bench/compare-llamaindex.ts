/**
 * citetrace side by side with the usual alternative, LlamaIndex's CitationQueryEngine (Python,
 * bench/llamaindex/baseline.py, deterministic extractive mock LLM), in one run on the same
 * passages and questions, doing the same retrieval work:
 *
 *   fts     citetrace LanceDB BM25            vs  LlamaIndex BM25Retriever (bm25s)
 *   vector  citetrace LanceDB cosine, MiniLM  vs  LlamaIndex VectorStoreIndex, the same MiniLM ONNX file on onnxruntime
 *
 * citetrace's per-question path is the whole `ask`: normalize, route scope, in-force filter,
 * retrieve, label, support check, extractive generate, validate, redact, commit the hash-chained
 * trace to SQLite (WAL, synchronous=FULL) on disk. LlamaIndex's is the whole `engine.query()`.
 * In vector mode both sides embed the question inside the timed path. The two systems take turns
 * in blocks (one pass over the questions each, per round and mode; the Python process waits on
 * stdin while citetrace runs), so the drift of the machine's load hits both alike. Prints the latency table, where the time goes, and which contract checks
 * each system performs; writes bench/results/compare-llamaindex.json.
 *
 * "Outside the models" is each side's per-question time less its models: citetrace's question
 * embedding, support judge and durable trace commit (fsync), LlamaIndex's question embedding and
 * mock LLM. With --passages N both sides get a generated repository of about N passages
 * (bench/scale-corpus.ts; --data DIR keeps its index for the next run) and its questions.
 *
 * Setup: sh bench/llamaindex/setup.sh
 * Run:   npx tsx bench/compare-llamaindex.ts [--rounds 5] [--passages 10000 [--data DIR]] [--export-only FILE]
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.js';
import { judgeSupport, validateAnswer } from '../src/cite/index.js';
import { labelOf } from '../src/domain/index.js';
import { MINILM, type Embedder } from '../src/embed/index.js';
import { percentile, readCases } from '../src/eval/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { openPolicyIndex } from '../src/index-store/index.js';
import { generateScaleCorpus, scaleQuestions } from './scale-corpus.js';
import { createExtractiveGenerator } from '../src/generate/index.js';
import { createEmbedder, loadSharedModels, loadShippedJudge, openRuntime } from '../src/main.js';
import { mentionedEntities, normalizeQuestion } from '../src/policy/index.js';
import { createSafetyFloor } from '../src/scope/index.js';
import { createHybridRetriever, type RetrievalMode } from '../src/retrieve/index.js';
import { redact } from '../src/trace/index.js';

const MODES = ['fts', 'vector'] as const satisfies readonly RetrievalMode[];
type Mode = (typeof MODES)[number];
const ROLE = 'patient';
const AS_OF = '2026-12-02';
const GOAL = 5;
/** Issue 20: per-question time outside the models, LlamaIndex's over citetrace's, in both modes. */
const OUTSIDE_GOAL = 3;

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(argValue('--rounds') ?? 5);
const PASSAGES = argValue('--passages') === undefined ? undefined : Number(argValue('--passages'));
const DATA = argValue('--data');
const EXPORT_ONLY = argValue('--export-only');
const root = fileURLToPath(new URL('..', import.meta.url));
const python = path.join(root, 'bench', 'llamaindex', '.venv', 'bin', 'python');
const baselineScript = path.join(root, 'bench', 'llamaindex', 'baseline.py');

interface CitetraceSample {
  readonly ms: number;
  readonly embed: number;
  readonly search: number;
  readonly commit: number;
  readonly judge: number;
  readonly scope: number;
  readonly outcome: string;
  readonly retriever: string;
}
interface BaselineSample {
  readonly ms: number;
  readonly embed_ms: number;
  readonly retrieve_ms: number;
  readonly citation_nodes_ms: number;
  readonly llm_ms: number;
  readonly answer: string;
  readonly sources: readonly string[];
}
interface BaselineReady {
  readonly ready: boolean;
  readonly build: { readonly fts_ms: number; readonly vector_ms: number; readonly nodes: number };
  readonly embedding_check: { readonly cosine: number; readonly max_abs_diff: number } | null;
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
const stats = (xs: readonly number[]): { p50: number; p95: number; mean: number } => ({ p50: percentile(xs, 50), p95: percentile(xs, 95), mean: mean(xs) });
const yesNo = (b: boolean): string => (b ? 'yes' : 'no');
const f1 = (x: number): string => x.toFixed(x < 10 ? 2 : 1);

const CHECKS = [
  {
    check: 'unknown label',
    citetrace: { yes: true, why: 'validateAnswer refuses a label that was not offered: abstain with CITATION_UNKNOWN, never shown' },
    llamaindex: { yes: false, why: 'the LLM text is returned as is; a label no source has reaches the user' },
  },
  {
    check: 'uncited sentence',
    citetrace: { yes: true, why: 'every sentence must carry a known label and be supported by it (CITATION_GAP / UNSUPPORTED_CLAIM)' },
    llamaindex: { yes: false, why: 'the prompt asks for citations; nothing checks that any sentence has one' },
  },
  {
    check: 'revision pinning',
    citetrace: { yes: true, why: 'passages carry their revision sha256; only revisions in force for the role and date are ranked' },
    llamaindex: { yes: false, why: 'nodes carry whatever metadata is given (here the revision id, passively); no in-force or role selection' },
  },
  {
    check: 'stored candidates',
    citetrace: { yes: true, why: 'every retrieved candidate, its raw and fused scores and whether it was offered go into the trace' },
    llamaindex: { yes: false, why: 'response.source_nodes holds the citation chunks in memory for the caller; nothing is stored' },
  },
  {
    check: 'durable trace',
    citetrace: { yes: true, why: 'append-only, hash-chained SQLite row committed (fsync) before the answer is returned' },
    llamaindex: { yes: false, why: 'callbacks/instrumentation can feed an observability tool; nothing durable by default' },
  },
] as const;

const work = await mkdtemp(path.join(os.tmpdir(), 'citetrace-vs-llamaindex-'));
let child: ReturnType<typeof spawn> | undefined;
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: DATA ?? path.join(work, 'index'), CITETRACE_IN_PROCESS_SEARCH: process.env.CITETRACE_IN_PROCESS_SEARCH ?? 'eager' } });
  const base = await createEmbedder(config);
  const corpusDir = PASSAGES === undefined ? path.join(root, 'corpus') : path.join(work, 'corpus');
  const generated = PASSAGES === undefined ? null : await generateScaleCorpus({ dir: corpusDir, passages: PASSAGES });
  if (!existsSync(path.join(config.dataDir, 'manifest.json'))) {
    await ingestRepository({ root: corpusDir, dataDir: config.dataDir, embedder: base, now: new Date() });
  }

  // Component timers, filled in the live path: the embedder passed to the runtime, and the
  // index's search and the store's append wrapped in place (the retriever and the assistant call
  // them through these objects), so nothing is measured outside citetrace's own `ask`.
  // Calls of one kind that overlap (the scope classifier and the second one that can only add an urgent routing run side
  // by side) count once, from the first start to the last end.
  const clock = { embed: 0, search: 0, commit: 0, judge: 0, scope: 0 };
  const open = { embed: 0, search: 0, commit: 0, judge: 0, scope: 0 };
  const since = { ...clock };
  const timed = async <T>(key: keyof typeof clock, run: () => Promise<T>): Promise<T> => {
    if (open[key] === 0) since[key] = performance.now();
    open[key] += 1;
    try {
      return await run();
    } finally {
      open[key] -= 1;
      if (open[key] === 0) clock[key] += performance.now() - since[key];
    }
  };
  const embedder: Embedder = {
    modelId: base.modelId,
    weightsSha256: base.weightsSha256,
    dimensions: base.dimensions,
    embed: (request) => timed('embed', () => base.embed(request)),
  };
  // The models are loaded here so that each can be timed in place: the support judge and the two scope classifiers.
  const models = await loadSharedModels(config);
  const score = models.judge.score.bind(models.judge);
  (models.judge as { score: typeof score }).score = (question, texts) => timed('judge', () => score(question, texts));
  for (const classifier of [models.classifier, models.urgentReader]) {
    const classify = classifier.classify.bind(classifier);
    (classifier as { classify: typeof classify }).classify = (texts) => timed('scope', () => classify(texts));
  }
  const runtime = await openRuntime({ config, embedder, models });
  const { index, store } = runtime;
  const vectorSearch = index.vectorSearch.bind(index);
  const textSearch = index.textSearch.bind(index);
  const append = store.append.bind(store);
  index.vectorSearch = (request) => timed('search', () => vectorSearch(request));
  index.textSearch = (request) => timed('search', () => textSearch(request));
  store.append = (trace) => timed('commit', () => append(trace));

  // The same chunks on both sides: citetrace's own passages of the revisions in force for the role
  // and date (what its prefilter lets it rank), and the dev-set questions expected to be answered.
  const cases = await readCases(path.join(root, 'corpus', 'cases.yaml'));
  // The generated repository's questions, less the one a crisis line answers (nothing is retrieved for it).
  const questions =
    generated === null
      ? cases.filter((c) => c.expect === 'answer' && c.role === ROLE && (c.as_of === undefined || c.as_of === AS_OF)).map((c) => c.question)
      : scaleQuestions(generated).filter((q) => !q.includes('chest pain'));
  const passages: Record<string, unknown>[] = [];
  for (const rev of index.inForce({ role: ROLE, asOf: AS_OF }).values()) {
    for (const p of await index.passagesOf(rev.revision)) {
      passages.push({ chunk_id: p.chunkId, source_id: p.sourceId, revision: p.revision, version: rev.version, title: rev.title, headings: p.headings, text: p.text });
    }
  }
  const [reference] = await base.embed({ texts: [questions[0] ?? ''] });
  const exported = {
    role: ROLE,
    as_of: AS_OF,
    k: config.k,
    model_dir: config.modelDir ?? path.join(config.modelCacheDir, MINILM.name),
    passages,
    questions,
    reference: { text: questions[0] ?? '', vector: Array.from(reference ?? []) },
  };
  const exportFile = EXPORT_ONLY ?? path.join(work, 'export.json');
  await writeFile(exportFile, JSON.stringify(exported));
  if (EXPORT_ONLY !== undefined) {
    console.log(`wrote ${passages.length} passages and ${questions.length} questions to ${EXPORT_ONLY}`);
  } else {
    if (!existsSync(python)) throw new Error(`no LlamaIndex venv at ${python}: run sh bench/llamaindex/setup.sh`);
    const proc = spawn(python, [baselineScript, '--input', exportFile, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, TOKENIZERS_PARALLELISM: 'false' } });
    child = proc;
    const { stdin, stdout } = proc;
    const lines = createInterface({ input: stdout })[Symbol.asyncIterator]();
    const receive = async (): Promise<unknown> => {
      const line = await lines.next();
      if (line.done === true) throw new Error('the LlamaIndex baseline exited early (see its stderr above)');
      return JSON.parse(line.value) as unknown;
    };
    const ready = (await receive()) as BaselineReady;
    const baseline = async (mode: Mode, i: number): Promise<BaselineSample> => {
      stdin.write(`${JSON.stringify({ mode, i })}\n`);
      return (await receive()) as BaselineSample;
    };

    const assistants = { fts: runtime.assistantWith({ retrievalMode: 'fts' }), vector: runtime.assistantWith({ retrievalMode: 'vector' }) };
    const citetrace = async (mode: Mode, i: number): Promise<CitetraceSample> => {
      clock.embed = 0;
      clock.search = 0;
      clock.commit = 0;
      clock.judge = 0;
      clock.scope = 0;
      const start = performance.now();
      const trace = await assistants[mode].ask({ question: questions[i] ?? '', role: ROLE, asOf: AS_OF });
      const ms = performance.now() - start;
      return { ms, embed: clock.embed, search: clock.search, commit: clock.commit, judge: clock.judge, scope: clock.scope, outcome: trace.outcome, retriever: trace.config.retriever };
    };

    for (const mode of MODES) {
      for (let i = 0; i < Math.min(10, questions.length); i += 1) {
        await citetrace(mode, i);
        await baseline(mode, i);
      }
    }
    const ours: Record<Mode, CitetraceSample[]> = { fts: [], vector: [] };
    const theirs: Record<Mode, BaselineSample[]> = { fts: [], vector: [] };
    // Interleaved in blocks: per round and mode, one pass over the questions by each system, the
    // order alternating by round. Alternating question by question instead puts both onnxruntime
    // thread pools (each spins for a while after a run) and LanceDB's worker threads on 2 cores at
    // once and inflates both sides; blocks keep the drift of the machine's load shared.
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const mode of MODES) {
        const runOurs = async (): Promise<void> => {
          for (let i = 0; i < questions.length; i += 1) ours[mode].push(await citetrace(mode, i));
        };
        const runTheirs = async (): Promise<void> => {
          for (let i = 0; i < questions.length; i += 1) theirs[mode].push(await baseline(mode, i));
        };
        if (round % 2 === 0) {
          await runOurs();
          await runTheirs();
        } else {
          await runTheirs();
          await runOurs();
        }
      }
    }
    // Probes: the same two bad answers to both systems, and what citetrace kept of a real answer.
    stdin.write(`${JSON.stringify({ probe: true, i: 0 })}\n`);
    const theirProbe = (await receive()) as Record<'unknown_label' | 'uncited_sentence', { user_sees: string; passed_through: boolean }>;
    stdin.write(`${JSON.stringify({ quit: true })}\n`);
    const probeTrace = await assistants.fts.ask({ question: questions[0] ?? '', role: ROLE, asOf: AS_OF });
    const probeAnalysis = normalizeQuestion(redact(normalizeQuestion(questions[0] ?? '').original).text).normalized;
    const probeHits = await createHybridRetriever({ index, embedder: base, mode: 'fts' }).retrieve({
      query: probeAnalysis,
      role: ROLE,
      asOf: AS_OF,
      entities: mentionedEntities(probeAnalysis, index.manifest.assistant),
      limit: config.candidates,
    });
    const probeOffered = probeHits.slice(0, config.k).map((h, i) => ({ label: labelOf(i), passage: h.passage, revision: h.revision }));
    const verdict = (text: string): string => {
      const v = validateAnswer(text, probeOffered);
      return v.ok ? 'accepted' : `refused: ${v.reason}`;
    };
    const stored = await store.get(probeTrace.trace_id);
    const inForceRevisions = new Set([...index.inForce({ role: ROLE, asOf: AS_OF }).values()].map((r) => r.revision as string));
    const evidence = {
      'unknown label': {
        citetrace: `"The Harbor Clinic lab is open 24 hours. [S9]" -> ${verdict('The Harbor Clinic lab is open 24 hours. [S9]')}`,
        llamaindex: `"The Harbor Clinic lab is open 24 hours. [9]" -> ${theirProbe.unknown_label.passed_through ? 'shown unchanged' : `shown as "${theirProbe.unknown_label.user_sees}"`}`,
      },
      'uncited sentence': {
        citetrace: `a valid answer + "The Harbor Clinic lab is open 24 hours." -> ${verdict(`${probeTrace.answer} The Harbor Clinic lab is open 24 hours.`)}`,
        llamaindex: `"The Harbor Clinic lab is open 24 hours." -> ${theirProbe.uncited_sentence.passed_through ? 'shown unchanged' : `shown as "${theirProbe.uncited_sentence.user_sees}"`}`,
      },
      'revision pinning': {
        citetrace: `${probeTrace.retrieved.filter((r) => inForceRevisions.has(r.revision)).length} of ${probeTrace.retrieved.length} candidates carry a revision in force for ${ROLE} on ${AS_OF}`,
        llamaindex: 'ranks every node it was given; the baseline was handed only in-force passages',
      },
      'stored candidates': {
        citetrace: `trace read back from SQLite holds ${stored?.trace.retrieved.length ?? 0} candidates with scores (${stored?.trace.retrieved.filter((r) => r.offered).length ?? 0} offered)`,
        llamaindex: 'nothing stored',
      },
      'durable trace': {
        citetrace: stored === null ? 'NOT FOUND' : `trace ${probeTrace.trace_id.slice(0, 8)} committed at seq ${stored.seq}, chain hash ${stored.hash.slice(0, 19)}`,
        llamaindex: 'nothing stored',
      },
    } as const;

    // The pure-CPU stages inside "rest", timed one by one on the same questions and the passages
    // each mode offers (retrieval itself untimed here): question analysis (normalize, redact,
    // safety floor, entity mentions; the scope classifier is timed in bench/scope.ts), the support judge (units of the
    // offered passages), the extractive generator and validation (labels, support per sentence).
    const assistantConfig = index.manifest.assistant;
    const floor = createSafetyFloor();
    const judge = await loadShippedJudge(config);
    // The support check's own work (units from the Markdown tree, exclusions, the decision) with the model's scores replaced by constants.
    const constantJudge = { ...judge, score: (_question: string, texts: readonly string[]) => Promise.resolve(texts.map(() => 0.5)) };
    const generator = createExtractiveGenerator();
    const stageSamples: Record<Mode, { analysis: number[]; support: number[]; bookkeeping: number[]; generate: number[]; validate: number[] }> = {
      fts: { analysis: [], support: [], bookkeeping: [], generate: [], validate: [] },
      vector: { analysis: [], support: [], bookkeeping: [], generate: [], validate: [] },
    };
    for (const mode of MODES) {
      const retriever = createHybridRetriever({ index, embedder: base, mode });
      for (let round = 0; round < 3; round += 1) {
        for (const question of questions) {
          let start = performance.now();
          const analysis = normalizeQuestion(redact(normalizeQuestion(question).original).text).normalized;
          floor.match(analysis);
          const entities = mentionedEntities(analysis, assistantConfig);
          stageSamples[mode].analysis.push(performance.now() - start);
          const hits = await retriever.retrieve({ query: analysis, role: ROLE, asOf: AS_OF, entities, limit: config.candidates });
          const offered = hits.slice(0, config.k).map((h, i) => ({ label: labelOf(i), passage: h.passage, revision: h.revision }));
          start = performance.now();
          const support = await judgeSupport({ judge, question: analysis, passages: offered, maxUnits: config.judgeUnits, assistant: assistantConfig, mentioned: entities });
          stageSamples[mode].support.push(performance.now() - start);
          start = performance.now();
          await judgeSupport({ judge: constantJudge, question: analysis, passages: offered, maxUnits: config.judgeUnits, assistant: assistantConfig, mentioned: entities });
          stageSamples[mode].bookkeeping.push(performance.now() - start);
          start = performance.now();
          const draft = await generator.generate({ question, analysis, passages: offered, support });
          stageSamples[mode].generate.push(performance.now() - start);
          if (draft.kind === 'answer') {
            start = performance.now();
            validateAnswer(draft.text, offered);
            stageSamples[mode].validate.push(performance.now() - start);
          }
        }
      }
    }

    const results = MODES.map((mode) => {
      const c = ours[mode];
      const l = theirs[mode];
      const ct = stats(c.map((s) => s.ms));
      const li = stats(l.map((s) => s.ms));
      const cEmbed = mean(c.map((s) => s.embed));
      const cSearch = mean(c.map((s) => s.search));
      const cCommit = mean(c.map((s) => s.commit));
      const cJudge = mean(c.map((s) => s.judge));
      const cScope = mean(c.map((s) => s.scope));
      const lEmbed = mean(l.map((s) => s.embed_ms));
      const lRetrieve = mean(l.map((s) => s.retrieve_ms));
      const lSplit = mean(l.map((s) => s.citation_nodes_ms));
      const lLlm = mean(l.map((s) => s.llm_ms));
      const outside = { citetrace: stats(c.map((s) => s.ms - s.embed - s.judge - s.scope - s.commit)), llamaindex: stats(l.map((s) => s.ms - s.embed_ms - s.llm_ms)) };
      const withoutEmbed = { citetrace: stats(c.map((s) => s.ms - s.embed)), llamaindex: stats(l.map((s) => s.ms - s.embed_ms)) };
      const outcomes: Record<string, number> = {};
      for (const s of c) outcomes[s.outcome] = (outcomes[s.outcome] ?? 0) + 1;
      return {
        mode,
        samples: c.length,
        citetrace: {
          ...ct,
          retriever: c[0]?.retriever ?? '',
          outcomes,
          breakdown_mean_ms: { question_embedding: cEmbed, search: cSearch, support_judge: cJudge, scope_classifier: cScope, sqlite_commit: cCommit, rest: ct.mean - cEmbed - cSearch - cJudge - cScope - cCommit },
        },
        llamaindex: {
          ...li,
          breakdown_mean_ms: { question_embedding: lEmbed, retrieval_without_embedding: lRetrieve - lEmbed, citation_node_split: lSplit, mock_llm: lLlm, rest: li.mean - lRetrieve - lSplit - lLlm },
        },
        citetrace_components_p50_ms: {
          question_embedding: percentile(c.map((s) => s.embed), 50),
          search: percentile(c.map((s) => s.search), 50),
          support_judge: percentile(c.map((s) => s.judge), 50),
          sqlite_commit: percentile(c.map((s) => s.commit), 50),
        },
        citetrace_cpu_stages_ms: {
          question_analysis: stats(stageSamples[mode].analysis),
          support_check: stats(stageSamples[mode].support),
          support_bookkeeping: stats(stageSamples[mode].bookkeeping),
          extractive_generate: stats(stageSamples[mode].generate),
          validate: stats(stageSamples[mode].validate),
        },
        ratio: { p50: li.p50 / ct.p50, p95: li.p95 / ct.p95 },
        outside_the_models: { ...outside, ratio_p50: outside.llamaindex.p50 / outside.citetrace.p50, goal_met: outside.llamaindex.p50 / outside.citetrace.p50 >= OUTSIDE_GOAL },
        without_question_embedding: { ...withoutEmbed, ratio_p50: withoutEmbed.llamaindex.p50 / withoutEmbed.citetrace.p50 },
        goal_met: li.p50 / ct.p50 >= GOAL,
      };
    });

    console.log(`citetrace vs LlamaIndex CitationQueryEngine: ${questions.length} ${generated === null ? 'dev-set questions (expect answer' : 'questions of the generated repository (bench/scale-corpus.ts'}, ${ROLE}, as of ${AS_OF}) x ${ROUNDS} rounds, interleaved in blocks`);
    console.log(`same ${passages.length} passages on both sides (citetrace's in-force passages), k=${config.k} passages to the generator; ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'cpu'}`);
    console.log('per-question latency, ms (vector mode: embedding the question is inside the timed path on both sides)');
    console.log('  mode    citetrace p50 / p95   LlamaIndex p50 / p95   ratio p50 / p95   goal >=5x   ratio p50 without question embedding');
    for (const r of results) {
      console.log(
        `  ${r.mode.padEnd(6)}  ${f1(r.citetrace.p50).padStart(8)} / ${f1(r.citetrace.p95).padEnd(8)}  ${f1(r.llamaindex.p50).padStart(8)} / ${f1(r.llamaindex.p95).padEnd(9)}  ${`${r.ratio.p50.toFixed(2)}x / ${r.ratio.p95.toFixed(2)}x`.padEnd(16)}  ${(r.goal_met ? 'met' : 'MISSED').padEnd(10)}  ${r.without_question_embedding.ratio_p50.toFixed(2)}x (${f1(r.without_question_embedding.citetrace.p50)} vs ${f1(r.without_question_embedding.llamaindex.p50)} ms)`,
      );
    }
    console.log(`per-question time outside the models, ms (citetrace: less question embedding, scope classifier, support judge and the fsync'd trace commit; LlamaIndex: less question embedding and mock LLM); goal LlamaIndex / citetrace >= ${OUTSIDE_GOAL}x`);
    for (const r of results) {
      const o = r.outside_the_models;
      console.log(
        `  ${r.mode.padEnd(6)}  citetrace p50 / p95 ${f1(o.citetrace.p50)} / ${f1(o.citetrace.p95)}   LlamaIndex ${f1(o.llamaindex.p50)} / ${f1(o.llamaindex.p95)}   ratio p50 ${o.ratio_p50.toFixed(2)}x ${o.goal_met ? 'met' : 'MISSED'}; citetrace end to end with the judge p95 ${f1(r.citetrace.p95)} ms`,
      );
    }
    // The in-process search against LanceDB's own (its HNSW index above 4,096 passages, and exact flat search).
    const lanceOnly = await openPolicyIndex({ dataDir: config.dataDir, inProcess: 'off' });
    const allowed = [...index.inForce({ role: ROLE, asOf: AS_OF }).values()].map((r) => r.revision);
    const view = (ms: readonly { readonly passage: { readonly chunkId: string }; readonly score: number }[]): string => JSON.stringify(ms.map((m) => [m.passage.chunkId, m.score]));
    const same = { ann: 0, exact: 0 };
    for (const vector of await base.embed({ texts: questions })) {
      const ours = view(await vectorSearch({ vector, revisions: allowed, limit: 20 }));
      if (ours === view(await lanceOnly.vectorSearch({ vector, revisions: allowed, limit: 20 }))) same.ann += 1;
      if (ours === view(await lanceOnly.vectorSearch({ vector, revisions: allowed, limit: 20, exact: true }))) same.exact += 1;
    }
    lanceOnly.close();
    console.log(`in-process vector search, top 20 for each of ${questions.length} questions, identical to LanceDB's (${index.vectorMethod}): ${same.ann}; to LanceDB's exact search: ${same.exact}`);
    console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min) at the end of the run`);
    console.log('where the time goes (mean ms per question)');
    for (const r of results) {
      const cb = r.citetrace.breakdown_mean_ms;
      const lb = r.llamaindex.breakdown_mean_ms;
      console.log(
        `  ${r.mode.padEnd(6)}  citetrace  ${f1(r.citetrace.mean)}: question embedding ${f1(cb.question_embedding)}, search ${f1(cb.search)}, support judge ${f1(cb.support_judge)}, scope classifier ${f1(cb.scope_classifier)}, SQLite commit ${f1(cb.sqlite_commit)}, rest ${f1(cb.rest)} (normalize, safety floor, redact, support bookkeeping, generate, validate, trace)`,
      );
      console.log(
        `  ${''.padEnd(6)}  LlamaIndex ${f1(r.llamaindex.mean)}: question embedding ${f1(lb.question_embedding)}, retrieval ${f1(lb.retrieval_without_embedding)}, citation-node split ${f1(lb.citation_node_split)}, mock LLM ${f1(lb.mock_llm)}, rest ${f1(lb.rest)} (synthesizer prompt packing, callbacks, Response)`,
      );
      const cp = r.citetrace_components_p50_ms;
      const st = r.citetrace_cpu_stages_ms;
      console.log(`  ${''.padEnd(6)}  citetrace p50s: search ${f1(cp.search)}, support judge ${f1(cp.support_judge)}, SQLite commit ${f1(cp.sqlite_commit)}, question embedding ${f1(cp.question_embedding)}`);
      console.log(
        `  ${''.padEnd(6)}  citetrace CPU stages timed alone (p50 / mean): question analysis ${f1(st.question_analysis.p50)} / ${f1(st.question_analysis.mean)}, support check ${f1(st.support_check.p50)} / ${f1(st.support_check.mean)} (without the model ${f1(st.support_bookkeeping.p50)} / ${f1(st.support_bookkeeping.mean)}), extractive generate ${f1(st.extractive_generate.p50)} / ${f1(st.extractive_generate.mean)}, validate ${f1(st.validate.p50)} / ${f1(st.validate.mean)}`,
      );
      console.log(`  ${''.padEnd(6)}  citetrace retriever ${r.citetrace.retriever}; outcomes: ${Object.entries(r.citetrace.outcomes).map(([o, n]) => `${o} ${n}`).join(', ')}`);
    }
    for (const r of results.filter((x) => !x.goal_met)) {
      const cb = r.citetrace.breakdown_mean_ms;
      const parts = [
        ['question embedding (same model as LlamaIndex)', cb.question_embedding],
        ['search', cb.search],
        ['support judge', cb.support_judge],
        ['scope classifier', cb.scope_classifier],
        ['SQLite commit of the trace (fsync)', cb.sqlite_commit],
        ['the rest of the pipeline', cb.rest],
      ] as const;
      const biggest = [...parts].sort((a, b) => b[1] - a[1]);
      console.log(
        `  goal missed in ${r.mode} mode (${r.ratio.p50.toFixed(2)}x < ${GOAL}x): of citetrace's ${f1(r.citetrace.mean)} ms, ${biggest.map(([name, ms]) => `${name} ${f1(ms)} ms (${((ms / r.citetrace.mean) * 100).toFixed(0)}%)`).join(', ')}`,
      );
    }
    if (ready.embedding_check !== null) {
      console.log(`embedding parity: LlamaIndex's MiniLM ONNX class vs citetrace's on "${exported.reference.text}": cosine ${ready.embedding_check.cosine.toFixed(6)}`);
    }
    console.log('contract checks performed per question');
    console.log('  check              citetrace  LlamaIndex CitationQueryEngine');
    for (const c of CHECKS) {
      console.log(`  ${c.check.padEnd(17)}  ${yesNo(c.citetrace.yes).padEnd(9)}  ${yesNo(c.llamaindex.yes)}`);
      console.log(`  ${''.padEnd(17)}    citetrace: ${c.citetrace.why}; probe: ${evidence[c.check].citetrace}`);
      console.log(`  ${''.padEnd(17)}    LlamaIndex: ${c.llamaindex.why}; probe: ${evidence[c.check].llamaindex}`);
    }

    const out = path.join(root, 'bench', 'results');
    await mkdir(out, { recursive: true });
    await writeFile(
      path.join(out, 'compare-llamaindex.json'),
      `${JSON.stringify(
        {
          machine: `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'cpu'}`,
          setup: {
            questions: questions.length,
            rounds: ROUNDS,
            passages: passages.length,
            role: ROLE,
            as_of: AS_OF,
            k: config.k,
            candidates: config.candidates,
            note: 'per-question latency of the whole path on each side; in vector mode the question embedding (same MiniLM ONNX file) is inside it on both sides',
            llamaindex: { build: ready.build, embedding_check: ready.embedding_check, llm: 'ExtractiveMockLLM: first sentence of Source 1, cited [1]' },
          },
          goal: `LlamaIndex p50 / citetrace p50 >= ${GOAL}`,
          results,
          checks: CHECKS.map((c) => ({ ...c, probe: evidence[c.check] })),
          example_answers: MODES.map((mode) => ({ mode, question: questions[0], llamaindex: theirs[mode][0]?.answer })),
        },
        null,
        2,
      )}\n`,
    );
  }
  await runtime.close();
  await models.close();
} finally {
  child?.kill();
  await rm(work, { recursive: true, force: true });
}
