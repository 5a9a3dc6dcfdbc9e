/**
 * Byte flips in the index files at many random offsets (issue 17: 1,000), the long version of the
 * property in test/verify-cli.test.ts (which runs 60 in `npm test`). The demo corpus is ingested
 * once; each round flips one byte of one LanceDB file (file and offset drawn with a fixed seed),
 * opens the index and runs `verify --index` as the CLI does, then puts the byte back. A flip is
 * detected when verify lists a finding or the index refuses to open with one INDEX_CORRUPT line;
 * anything else (no finding, another error, a crash) is a miss. Writes bench/results/tamper-index.json.
 * Run: npx tsx bench/tamper-index.ts [--flips 1000]
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config/index.js';
import { CitetraceError } from '../src/domain/index.js';
import { verifyIndex } from '../src/eval/index.js';
import { openPolicyIndex } from '../src/index-store/index.js';
import { ingestRepository } from '../src/ingest/index.js';
import { createEmbedder } from '../src/main.js';

const at = process.argv.indexOf('--flips');
const flips = at > 0 ? Number(process.argv[at + 1]) : 1000;
// mulberry32: a fixed seed, so a miss can be replayed.
let state = 17;
const random = (): number => {
  state = (state + 0x6d2b79f5) | 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'citetrace-tamper-index-'));
try {
  const config = loadConfig({ env: { ...process.env, CITETRACE_DATA: dataDir } });
  await ingestRepository({ root: path.join(import.meta.dirname, '..', 'corpus'), dataDir, embedder: await createEmbedder(config), now: new Date() });
  const lance = path.join(dataDir, 'lance');
  const files = (await readdir(lance, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  const clean = await openPolicyIndex({ dataDir });
  const baseline = (await verifyIndex({ index: clean, dataDir })).findings;
  clean.close();
  if (baseline.length > 0) throw new Error(`the untouched index has findings: ${baseline.join('; ')}`);
  let findings = 0;
  let corrupt = 0;
  const misses: string[] = [];
  const started = performance.now();
  for (let i = 0; i < flips; i += 1) {
    const file = files[Math.floor(random() * files.length)] ?? '';
    const original = await readFile(file);
    const offset = Math.floor(random() * original.length);
    const mask = 1 + Math.floor(random() * 255);
    const flipped = Buffer.from(original);
    flipped[offset] = (flipped[offset] ?? 0) ^ mask;
    await writeFile(file, flipped);
    const what = `${path.relative(dataDir, file)} @${offset} ^${mask}`;
    try {
      const index = await openPolicyIndex({ dataDir });
      try {
        if ((await verifyIndex({ index, dataDir })).findings.length > 0) findings += 1;
        else misses.push(`${what}: no finding`);
      } finally {
        index.close();
      }
    } catch (error) {
      if (error instanceof CitetraceError && error.code === 'INDEX_CORRUPT' && error.message.split('\n').length === 1) corrupt += 1;
      else misses.push(`${what}: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`);
    } finally {
      await writeFile(file, original);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const result = { at: new Date().toISOString(), load: os.loadavg(), files: files.length, flips, detected: findings + corrupt, as_findings: findings, as_index_corrupt: corrupt, misses, seconds: Math.round(seconds) };
  console.log(`${flips} byte flips over ${files.length} index files: ${findings + corrupt} detected (${findings} as findings, ${corrupt} as one INDEX_CORRUPT line), ${misses.length} missed; ${seconds.toFixed(0)} s`);
  for (const miss of misses.slice(0, 10)) console.log(`  missed: ${miss}`);
  await mkdir(path.join(import.meta.dirname, 'results'), { recursive: true });
  await writeFile(path.join(import.meta.dirname, 'results', 'tamper-index.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (misses.length > 0) process.exitCode = 1;
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
