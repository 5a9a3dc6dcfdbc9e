import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { TraceSchema } from '../src/domain/index.js';
import { DEMO_CORPUS, runBin, tempDir } from './helpers.js';

const CASES = `
- id: harbor-lab-closing
  question: Until what time can I get blood drawn at the Harbor lab?
  expect: answer
  support: [harbor-lab-hours@2026-05-04]
  forbid: [harbor-lab-hours@2025-02-10]
  facts: [["4 pm"]]
  must_not_say: ["3 pm"]
  tags: [revision]
- id: hours-which-clinic
  question: What are the clinic hours on Saturday?
  expect: clarify
  tags: [clarify]
- id: bitcoin
  question: Can I pay my bill in bitcoin?
  expect: abstain
- id: stroke
  question: My mother's face is drooping and her speech is slurred
  expect: out_of_scope
  tags: [emergency]
`;

describe('citetrace eval, verify and replay (CLI)', () => {
  let dir: string;
  const env = (): Record<string, string> => ({ CITETRACE_DATA: path.join(dir, 'data') });

  beforeAll(async () => {
    dir = await tempDir();
    await writeFile(path.join(dir, 'cases.yaml'), CASES);
    // The data folder must exist before the first ingest (a typo in --data must not create an empty store).
    await mkdir(path.join(dir, 'data'));
    expect((await runBin(['ingest', DEMO_CORPUS], env())).code).toBe(0);
  });

  it('writes a JSON report of the contract shape and a self-contained HTML report', async () => {
    const json = path.join(dir, 'report.json');
    const html = path.join(dir, 'report.html');
    const result = await runBin(['eval', path.join(dir, 'cases.yaml'), '--as-of', '2026-12-02', '--json', json, '--html', html, '--min-accuracy', '0.75', '--max-unsupported', '0'], env());
    expect(result.stderr).toMatch(/eval: 4\/4/u);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/unsupported answers\s+0/u);
    expect(result.stdout).toMatch(/scope routing\s+emergency 1, crisis 0, clinical 0, other language 0 of 1 expected out of scope; not routed 0; in scope routed away 0/u);
    const report = JSON.parse(await readFile(json, 'utf8')) as { metrics: { cases: number; outcomes: { accuracy: number } }; cases: { id: string; expect: string; passed: boolean; trace: unknown }[] };
    expect(report.metrics.cases).toBe(4);
    expect(report.cases.map((c) => c.id)).toEqual(['harbor-lab-closing', 'hours-which-clinic', 'bitcoin', 'stroke']);
    for (const c of report.cases) TraceSchema.parse(c.trace);
    expect(report.cases.every((c) => c.passed)).toBe(true);
    const page = await readFile(html, 'utf8');
    expect(page).toMatch(/^<!doctype html>/u);
    expect(page).toContain('<svg');
    expect(page).toContain('Scope routing: expected (rows) against the route taken (columns)');
    expect(page).not.toMatch(/<script|src="http/u);
  });

  it('exits 3 naming the missed threshold, and 0 when every threshold is met', async () => {
    const wrong = path.join(dir, 'wrong.yaml');
    await writeFile(wrong, CASES.replace('  expect: abstain', '  expect: answer'));
    const missed = await runBin(['eval', wrong, '--min-accuracy', '1', '--max-unsupported', '0'], env());
    expect(missed.code).toBe(3);
    expect(missed.stderr).toMatch(/eval gate missed: outcome accuracy 0\.750 is below 1/u);
    expect(missed.stderr).not.toMatch(/unsupported answers/u);
    const met = await runBin(['eval', path.join(dir, 'cases.yaml'), '--min-accuracy', '1', '--max-unsupported', '0', '--min-recall5', '1', '--min-citation-precision', '1', '--min-citation-recall', '1', '--max-wrong-abstentions', '0'], env());
    expect(met.code).toBe(0);
  });

  it('opens the HTML report with the failures, in plain words, each with its trace summary (a file opens nothing else), or linked to the console given', async () => {
    const wrong = path.join(dir, 'wrong-report.yaml');
    await writeFile(wrong, CASES.replace('  expect: abstain', '  expect: answer'));
    const json = path.join(dir, 'wrong-report.json');
    const html = path.join(dir, 'wrong-report.html');
    const result = await runBin(['eval', wrong, '--as-of', '2026-12-02', '--json', json, '--html', html], env());
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(json, 'utf8')) as { cases: { id: string; latencyMs: number; trace: { trace_id: string } }[] };
    for (const c of report.cases) expect(c.latencyMs).toBeGreaterThan(0);
    const bitcoin = report.cases.find((c) => c.id === 'bitcoin');
    const page = await readFile(html, 'utf8');
    const headings = [...page.matchAll(/<h2>([^<]*)<\/h2>/gu)].map((m) => m[1]);
    expect(headings[0]).toBe('Failures (1)');
    // Opened as a file, a link relative to a console resolves to file:///console/... and opens nothing: the summary is in the page.
    expect(page).not.toContain('href="/console');
    const summary = /<details class="trace">(.*?)<\/details>/su.exec(page)?.[1] ?? '';
    expect(summary).toContain(`Trace <code>${bitcoin?.trace.trace_id ?? ''}</code>`);
    expect(summary).toMatch(/outcome abstain \(no support\)/u);
    expect(summary).toMatch(/<th scope="col">passage<\/th>/u);
    const linked = path.join(dir, 'wrong-report-linked.html');
    expect((await runBin(['eval', wrong, '--as-of', '2026-12-02', '--html', linked, '--console-url', 'http://127.0.0.1:8080/'], env())).code).toBe(0);
    const linkedPage = await readFile(linked, 'utf8');
    expect(linkedPage).toMatch(/<a href="http:\/\/127\.0\.0\.1:8080\/console\/traces\/[0-9a-f-]{36}">trace<\/a>/u);
    expect(linkedPage).not.toContain('<details class="trace">');
    const bad = await runBin(['eval', wrong, '--html', linked, '--console-url', 'ftp://x'], env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--console-url.*expected the http\(s\) URL/u);
    expect(page).toContain('expected answer, got abstain (no support)');
    expect(page).toContain('correct source not retrieved');
    expect(page).not.toMatch(/correctSourceNotRetrieved|NO_SUPPORT|out_of_scope/u);
    expect(page).not.toMatch(/<script|<link|src=/u);
  });

  it('rejects a malformed case file with exit 2 and one line', async () => {
    await writeFile(path.join(dir, 'bad.yaml'), '- id: x\n  question: hi\n  expect: maybe\n');
    const result = await runBin(['eval', path.join(dir, 'bad.yaml')], env());
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/bad\.yaml: case 0\.expect/u);
  });

  it('verify --all passes on the stored traces and replay finds no change', async () => {
    const verified = await runBin(['verify', '--all'], env());
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/verified \d+ trace\(s\): \d+ ok, 0 failed; 0 purged/u);
    const replayed = await runBin(['replay', '--fail-on-change'], env());
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(/retrieval changed 0, outcome changed 0, citations changed 0/u);
  });

  it('purges payloads by age, after which verify still passes on every link and the payload is gone', async () => {
    const listed = await runBin(['traces', 'list', '--limit', '1'], env());
    // A list cut at its limit says so, on stderr, so stdout stays one row per trace.
    expect(listed.stderr).toBe('citetrace: the newest 1 shown; --limit N for more\n');
    const id = listed.stdout.split('\t')[0] ?? '';
    const purged = await runBin(['purge', '--older-than', '0d'], env());
    expect(purged.code).toBe(0);
    expect(purged.stdout).toMatch(/purged \d+ trace\(s\)/u);
    const verified = await runBin(['verify', '--all'], env());
    expect(verified.code).toBe(0);
    expect(verified.stdout).toMatch(/0 failed; \d+ purged/u);
    const shown = await runBin(['traces', 'show', id], env());
    expect(shown.code).toBe(2);
    expect(shown.stderr).toMatch(/was purged by retention/u);
    expect((await runBin(['purge', '--older-than', 'soon'], env())).code).toBe(2);
  });
});
