import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateScaleCorpus } from '../bench/scale-corpus.js';
import { matchesMentioned, type EntityMentions, type IsoDate, type RevisionId, type Role, type Trace } from '../src/domain/index.js';
import { readCases } from '../src/eval/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { openPolicyIndex, type PolicyIndex } from '../src/index-store/index.js';
import { openRuntime, type Runtime } from '../src/main.js';
import { CLOCK, DEMO_CORPUS, realEmbedder, tempDir, testConfig } from './helpers.js';

/**
 * The in-process vector search (src/index-store/memory-vectors.ts) must return what LanceDB
 * returns: the same passages in the same order with the same float scores, for every role, date
 * (today, historical, future) and named-clinic scope, on the demo corpus and on a generated one;
 * and whole traces must not change (ids and clock are fixed, so they are compared whole).
 */
const ROLES: readonly Role[] = ['patient', 'staff'];
const DATES: readonly IsoDate[] = ['2026-12-02', '2025-08-01', '2027-02-01'];
const LIMITS = [5, 20] as const;

interface Opened {
  readonly lance: PolicyIndex;
  readonly memory: PolicyIndex;
  readonly questions: readonly string[];
  readonly vectors: readonly Float32Array[];
  readonly scopes: readonly EntityMentions[];
}

async function openBoth(dataDir: string, questions: readonly string[], scopes: readonly EntityMentions[]): Promise<Opened> {
  const embedder = await realEmbedder();
  const [lance, memory, vectors] = await Promise.all([
    openPolicyIndex({ dataDir, inProcess: 'off' }),
    openPolicyIndex({ dataDir, inProcess: 'eager' }),
    embedder.embed({ texts: questions }),
  ]);
  return { lance, memory, questions, vectors, scopes };
}

async function compare(opened: Opened): Promise<number> {
  let compared = 0;
  for (const role of ROLES) {
    for (const asOf of DATES) {
      for (const entities of opened.scopes) {
        const revisions = [...opened.lance.inForce({ role, asOf }).values()].filter((r) => matchesMentioned(r.entities, entities)).map((r) => r.revision);
        for (const [i, vector] of opened.vectors.entries()) {
          for (const limit of LIMITS) {
            const [expected, actual] = await Promise.all([opened.lance.vectorSearch({ vector, revisions, limit }), opened.memory.vectorSearch({ vector, revisions, limit })]);
            const view = (ms: typeof expected): string[] => ms.map((m) => `${m.passage.chunkId} ${m.score}`);
            expect(view(actual), `${role} ${asOf} ${JSON.stringify(entities)} "${opened.questions[i] ?? ''}" k=${limit}`).toEqual(view(expected));
            expect(actual).toEqual(expected);
            const allowed = new Set<RevisionId>(revisions);
            for (const m of actual) expect(allowed.has(m.passage.revision)).toBe(true);
            compared += 1;
          }
        }
      }
    }
  }
  return compared;
}

describe('in-process vector search equals LanceDB', () => {
  const opened: Opened[] = [];
  afterAll(() => {
    for (const o of opened) {
      o.lance.close();
      o.memory.close();
    }
  });

  it('on the demo corpus: every role, date and clinic scope, the dev-set questions', async () => {
    const dataDir = await tempDir('citetrace-memory-demo-');
    await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder: await realEmbedder(), now: CLOCK() });
    const questions = (await readCases(path.join(DEMO_CORPUS, 'cases.yaml'))).map((c) => c.question).slice(0, 60);
    const o = await openBoth(dataDir, questions, [{}, { clinic: ['harbor'] }, { clinic: ['eastside'] }] as EntityMentions[]);
    opened.push(o);
    expect(await compare(o)).toBe(ROLES.length * DATES.length * 3 * questions.length * LIMITS.length);
    // Staff-only passages never reach a patient, on the in-process path too.
    const staffOnly = [...o.memory.revisions.values()].filter((r) => !r.audience.includes('patient')).map((r) => r.revision as string);
    expect(staffOnly.length).toBeGreaterThan(0);
    const patient = [...o.memory.inForce({ role: 'patient', asOf: '2026-12-02' }).values()].map((r) => r.revision);
    for (const vector of o.vectors) {
      for (const m of await o.memory.vectorSearch({ vector, revisions: patient, limit: 20 })) expect(staffOnly).not.toContain(m.passage.revision);
    }
  }, 300_000);

  it('on a generated corpus of ~1,200 passages (clinics, staff-only, superseded, draft, future, retired)', async () => {
    const root = path.join(await tempDir('citetrace-memory-gen-'), 'corpus');
    const generated = await generateScaleCorpus({ dir: root, passages: 1200, seed: 7 });
    const dataDir = await tempDir('citetrace-memory-gen-data-');
    await ingestRepository({ root, dataDir, embedder: await realEmbedder(), now: CLOCK() });
    const questions = generated.clinicNames.flatMap((clinic) => generated.topicTitles.slice(0, 4).map((topic) => `What are the ${topic} at the ${clinic} clinic?`));
    const clinics = generated.clinicNames.slice(0, 2).map((c) => ({ clinic: [c.toLowerCase().replace(/[^a-z0-9]+/gu, '-')] }));
    const o = await openBoth(dataDir, questions, [{}, ...clinics] as EntityMentions[]);
    opened.push(o);
    expect(await compare(o)).toBeGreaterThan(500);
  }, 300_000);
});

describe('traces are unchanged by the in-process search', () => {
  let lance: Runtime;
  let memory: Runtime;
  beforeAll(async () => {
    const dataDir = await tempDir('citetrace-memory-traces-');
    const embedder = await realEmbedder();
    await ingestRepository({ root: DEMO_CORPUS, dataDir, embedder, now: CLOCK() });
    lance = await openRuntime({ config: testConfig(dataDir, { CITETRACE_TRACES: path.join(dataDir, 'a.sqlite'), CITETRACE_IN_PROCESS_SEARCH: 'off' }), embedder, clock: CLOCK });
    memory = await openRuntime({ config: testConfig(dataDir, { CITETRACE_TRACES: path.join(dataDir, 'b.sqlite'), CITETRACE_IN_PROCESS_SEARCH: 'eager' }), embedder, clock: CLOCK });
  }, 120_000);
  afterAll(async () => {
    await lance.close();
    await memory.close();
  });

  it('the same trace, field for field, for the dev-set questions (hybrid and vector)', async () => {
    const cases = (await readCases(path.join(DEMO_CORPUS, 'cases.yaml'))).slice(0, 40);
    for (const mode of ['hybrid', 'vector'] as const) {
      const a = lance.assistantWith({ retrievalMode: mode });
      const b = memory.assistantWith({ retrievalMode: mode });
      for (const c of cases) {
        const request = { question: c.question, role: c.role, ...(c.as_of === undefined ? {} : { asOf: c.as_of }) };
        const strip = (t: Trace): unknown => ({ ...t, trace_id: null, otel_trace_id: null });
        expect(strip(await b.ask(request)), c.id).toEqual(strip(await a.ask(request)));
      }
    }
  }, 300_000);
});

