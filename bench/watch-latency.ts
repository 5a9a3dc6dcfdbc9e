/**
 * How long an edit to a policy file takes to become a committed revision under `watch`:
 * from the write to the new manifest commit, over several edits of one file.
 * Prints a table and writes bench/results/watch-latency.json.
 * Run: npx tsx bench/watch-latency.ts
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config/index.js';
import { readManifest } from '../src/index-store/index.js';
import { watchRepository } from '../src/ingest/index.js';
import { createEmbedder } from '../src/main.js';

const EDITS = 10;
const work = await mkdtemp(path.join(os.tmpdir(), 'citetrace-watch-bench-'));
try {
  const corpus = path.join(work, 'corpus');
  const dataDir = path.join(work, 'data');
  await cp(fileURLToPath(new URL('../corpus', import.meta.url)), corpus, { recursive: true });
  const embedder = await createEmbedder(loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir } }));
  const watcher = watchRepository({
    root: corpus,
    dataDir,
    embedder,
    now: new Date(),
    clock: () => new Date(),
    onIngest: () => undefined,
    onError: (e) => {
      console.error(e);
    },
  });
  await watcher.ready;
  const seq = async (): Promise<number> => (await readManifest(dataDir))?.seq ?? 0;
  const file = path.join(corpus, 'lab', 'harbor-lab-hours.md');
  const original = await readFile(file, 'utf8');
  const samples: number[] = [];
  for (let edit = 1; edit <= EDITS; edit += 1) {
    const before = await seq();
    const started = performance.now();
    await writeFile(file, `${original.replace('version: 2026-05-04', `version: 2026-05-04-edit-${edit}`)}\nEdit ${edit}: the lab posts its holiday hours at the front desk.\n`);
    while ((await seq()) === before) await new Promise((r) => setTimeout(r, 20));
    samples.push(performance.now() - started);
  }
  await watcher.close();
  samples.sort((a, b) => a - b);
  const result = { edits: EDITS, commit_ms: { min: Math.round(samples[0] ?? 0), median: Math.round(samples[Math.floor(EDITS / 2)] ?? 0), max: Math.round(samples.at(-1) ?? 0) } };
  console.log('citetrace watch: edit -> committed revision (includes the settle delay for half-written files)');
  console.log(`  edits   ${result.edits}`);
  console.log(`  min     ${result.commit_ms.min} ms`);
  console.log(`  median  ${result.commit_ms.median} ms`);
  console.log(`  max     ${result.commit_ms.max} ms`);
  const out = fileURLToPath(new URL('./results/', import.meta.url));
  await mkdir(out, { recursive: true });
  await writeFile(path.join(out, 'watch-latency.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  await rm(work, { recursive: true, force: true });
}
