import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EvalCaseSchema, renderHtmlReport, runEval } from '../src/eval/index.js';
import { launchChromium } from './chromium.js';
import { ROOT, startTestService, TODAY, type TestService } from './helpers.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts');

declare module 'vitest' {
  interface TaskMeta {
    /** Where a browser test wrote its screenshot. */
    screenshot?: string;
  }
}

describe('operator console in a real browser', () => {
  let t: TestService | undefined;
  let browser: Browser | undefined;
  let signedIn: BrowserContext | undefined;
  let base: string;
  let operator: string;

  /** A page in a context that already holds the operator's console cookie. */
  const operatorPage = async (): Promise<Page> => {
    if (signedIn === undefined) {
      signedIn = await browser!.newContext();
      const page = await signedIn.newPage();
      await page.goto(`${base}/console/login`);
      await page.getByLabel('Operator API key').fill(operator);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.url()).toMatch(/\/console$/u);
      return page;
    }
    return signedIn.newPage();
  };

  const ask = async (page: Page, question: string, asOf = ''): Promise<void> => {
    await page.goto(`${base}/console/ask`);
    await page.getByLabel('Question').fill(question);
    await page.getByLabel('Role').selectOption('patient');
    await page.getByLabel('As of').fill(asOf);
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/traces\/[0-9a-f-]{36}$/u);
  };

  beforeAll(async () => {
    browser = await launchChromium();
    t = await startTestService();
    base = t.base;
    operator = t.keyFor('operator');
    await mkdir(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await signedIn?.close();
    await browser?.close();
    await t?.close();
  });

  it('asks a question, opens its trace, and follows a citation to the highlighted passage', async () => {
    const page = await browser!.newPage();
    await page.goto(`${base}/console`);
    await expect.poll(() => page.url()).toMatch(/\/console\/login$/u);
    await page.getByLabel('Operator API key').fill(operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Ask' }).click();
    await page.getByLabel('Question').fill('Until what time can I get blood drawn at the Harbor lab?');
    await page.getByLabel('Role').selectOption('patient');
    await page.getByRole('button', { name: 'Ask' }).click();

    await expect.poll(() => page.url()).toMatch(/\/console\/traces\/[0-9a-f-]{36}$/u);
    await page.getByRole('heading', { name: '5. Answer, sentence by sentence' }).waitFor();
    expect(await page.getByText(/^Understood:/u).innerText()).toMatch(/clinic harbor/u);
    const answer = await page.locator('#answer td.sentence').first().innerText();
    expect(answer).toMatch(/4 pm/u);
    expect(await page.locator('td.cited').count()).toBeGreaterThan(0);

    await page.locator('#answer td.sentence a').first().click();
    const mark = page.locator('mark#passage');
    await mark.waitFor();
    expect(await mark.innerText()).toMatch(/Harbor Clinic lab/u);
    expect(await page.locator('.ok').innerText()).toMatch(/matches the trace/u);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-passage.png'), fullPage: true });

    await page.goBack();
    await page.getByRole('button', { name: 'Verify this trace' }).click();
    expect(await page.getByRole('status').innerText()).toMatch(/Verified/u);
    await page.getByRole('link', { name: 'Sources' }).click();
    expect(await page.locator('.stale').count()).toBeGreaterThan(0);
    await page.close();
  });

  it('shows why support and scope were decided: per-sentence score, threshold and checker; route, model, hash, thresholds, scores', async () => {
    const page = await operatorPage();
    await ask(page, 'Until what time can I get blood drawn at the Harbor lab?');

    const scope = page.locator('#scope');
    expect(await scope.locator('.route').innerText()).toBe('in scope');
    const scopeText = await scope.innerText();
    expect(scopeText).toMatch(/Model \S+ · sha256 [0-9a-f]{16}… · thresholds: urgent \d\.\d\d, clinical \d\.\d\d/u);
    expect(scopeText).toMatch(/urgent \(emergency \+ crisis, most urgent segment\)\s+\d\.\d{3}\s+< \d\.\d\d/u);

    const support = page.locator('#support');
    expect(await support.innerText()).toMatch(/Judge: \S+ sha256 [0-9a-f]{16}…, threshold \d\.\d\d \(only the 5 best-retrieved passages may be offered\); it read \d+ of \d+ units of the retrieved passages/u);
    const passing = support.locator('td.ok', { hasText: 'answers' });
    expect(await passing.count()).toBeGreaterThan(0);
    // Each judged unit: label, kind, text, span, score, decision.
    const unit = await support.locator('tbody tr').first().locator('td').allInnerTexts();
    expect(unit[0]).toMatch(/^S\d+/u);
    expect(unit[1]).toMatch(/^(sentence|item|row|faq)$/u);
    expect(unit[3]).toMatch(/^\d+–\d+$/u);
    expect(Number(unit[4])).toBeGreaterThanOrEqual(0);

    const rows = page.locator('#answer tbody tr');
    expect(await rows.count()).toBeGreaterThan(0);
    for (const row of await rows.all()) {
      const cells = await row.locator('td').allInnerTexts();
      // #, sentence, cites, support, threshold, decision
      expect(cells[2]).toMatch(/^S\d+/u);
      expect(Number(cells[3])).toBeGreaterThanOrEqual(Number(cells[4]));
      expect(cells[4]).toBe('0.80');
      expect(cells[5]).toBe('supported');
    }
    expect(await page.locator('#answer').innerText()).toMatch(/Checker: lexical support .*no model/u);
    const first = page.locator('#answer td.sentence').first();
    await first.locator('summary').click();
    const marked = await first.locator('.passage mark').allInnerTexts();
    expect(marked.map((w) => w.toLowerCase())).toEqual(expect.arrayContaining(['harbor', 'lab', 'blood']));
    expect(await first.locator('summary').innerText()).toBe('matched spans');
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-trace.png'), fullPage: true });

    await ask(page, 'My chest hurts and my left arm is numb, can I book for tomorrow?');
    expect(await page.locator('#scope .route').innerText()).toBe('emergency');
    expect(await page.locator('#scope').innerText()).toMatch(/decided by (the safety floor, phrase|the scope classifier)/u);
    expect(await page.locator('#support').innerText()).toMatch(/Not reached: the question was routed before retrieval/u);
    await page.close();
  });

  it('marks a trace revision replaced since as stale, and links every revision to its full text on a timeline with a status each', async () => {
    const page = await operatorPage();
    await ask(page, 'Until what time can I get blood drawn at the Harbor lab?', '2025-06-01');
    const replaced = page.locator('td .stale', { hasText: 'replaced by version 2026-05-04' });
    expect(await replaced.count()).toBeGreaterThan(0);
    await replaced.first().getByRole('link').click();
    await expect.poll(() => page.url()).toMatch(/\/console\/revisions\/sha256%3A[0-9a-f]{64}$/u);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('harbor-lab-hours version 2026-05-04');
    expect(await page.locator('.badge').innerText()).toBe('in force');
    expect(await page.locator('pre.revision').innerText()).toMatch(/7 am to 4 pm/u);

    // A trace that used a revision not yet in force today is not stale.
    await ask(page, 'What time does the Eastside Clinic open on weekdays?', '2027-02-01');
    expect(await page.locator('td', { hasText: 'not yet in force (takes effect 2027-01-15)' }).count()).toBeGreaterThan(0);

    await page.goto(`${base}/console/sources`);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-sources.png'), fullPage: true });
    const statuses = await page.locator('td.status .badge').allInnerTexts();
    const rows = await page.locator('tbody tr').count();
    expect(statuses).toHaveLength(rows);
    for (const s of statuses) expect(['draft', 'future', 'in force', 'superseded', 'retired', 'withdrawn']).toContain(s);
    for (const s of ['draft', 'future', 'in force', 'superseded', 'retired']) expect(statuses).toContain(s);
    expect(await page.locator('a', { hasText: 'full text' }).count()).toBe(rows);

    // Eastside's hours: the revision in force today, then the future one, in timeline order.
    const eastside = page.locator('tbody tr').filter({ has: page.locator('a[href*="sha256"]') });
    const future = eastside.filter({ hasText: '2027-01-15' }).first();
    expect(await future.locator('.badge').innerText()).toBe('future');
    await future.getByRole('link', { name: 'full text' }).click();
    expect(await page.locator('.badge').innerText()).toBe('future');
    expect((await page.locator('pre.revision').innerText()).length).toBeGreaterThan(50);
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-revision.png'), fullPage: true });
    expect((await page.goto(`${base}/console/revisions/sha256%3Anot-a-revision`))?.status()).toBe(404);
    await page.close();
  });

  it('renders a generated eval report with the failures first, and its trace links open in the console', async ({ annotate, task }) => {
    const rt = t!.service.context.runtime();
    const cases = [
      { id: 'harbor-lab-closing', question: 'Until what time can I get blood drawn at the Harbor lab?', expect: 'answer', support: ['harbor-lab-hours@2026-05-04'], facts: [['4 pm']], tags: ['revision'] },
      { id: 'bitcoin-expected-answer', question: 'Can I pay my bill in bitcoin?', expect: 'answer', tags: ['billing'] },
      { id: 'stroke', question: "My mother's face is drooping and her speech is slurred", expect: 'out_of_scope', tags: ['emergency'] },
      { id: 'hours-which-clinic', question: 'What are the clinic hours on Saturday?', expect: 'clarify', tags: ['clarify'] },
    ].map((c) => EvalCaseSchema.parse(c));
    const report = await runEval({ cases, k: 5, assistantFor: (k) => rt.assistantWith({ k }), revisions: rt.index.revisions, asOf: TODAY });
    const html = renderHtmlReport(report, { consoleUrl: base });
    const file = path.join(ARTIFACTS, 'eval-report.html');
    await writeFile(file, html);

    const page = await operatorPage();
    await page.goto(`${base}/console`);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    // Rendered with the console's URL (eval --console-url), so its trace links open the console's trace pages.
    await page.setContent(html, { waitUntil: 'load' });
    expect(requests).toEqual([]);
    expect(html).not.toMatch(/<script|<link|src=|url\(/u);

    const headings = await page.locator('h2').allInnerTexts();
    expect(headings[0]).toBe('Failures (1)');
    const failures = page.locator('#failures');
    const heading = page.getByRole('heading', { name: 'Headline' });
    expect((await failures.boundingBox())!.y).toBeLessThan((await heading.boundingBox())!.y);
    const row = await failures.locator('tbody tr td').allInnerTexts();
    expect(row[0]).toBe('bitcoin-expected-answer');
    expect(row[1]).toBe('Can I pay my bill in bitcoin?');
    expect(row[2]).toBe('answer');
    expect(row[3]).toMatch(/^abstain \(no support\)/u);
    expect(row[4]).toMatch(/expected answer, got abstain \(no support\)/u);
    for (const h of ['Outcomes: expected against what the assistant did', 'Scope routing: expected (rows) against the route taken (columns)', 'Support scores: answered against abstained', 'Accuracy by tag', 'Latency', 'Failure classes'])
      expect(headings).toContain(h);
    expect(await page.locator('svg[role=img]').count()).toBeGreaterThanOrEqual(4);
    // Human-readable labels: no camelCase key and no SCREAMING_CASE reason anywhere on the page.
    const text = await page.locator('body').innerText();
    expect(text).not.toMatch(/\b[a-z]+[A-Z][a-zA-Z]*\b/u);
    expect(text).not.toMatch(/\b[A-Z]+_[A-Z_]+\b|\b[a-z]+_[a-z_]+\b/u);
    expect(text).toContain('correct source not retrieved');

    const screenshot = path.join(ARTIFACTS, 'eval-report.png');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: screenshot, fullPage: true });
    // The path goes into the test's meta and the reporter's output; a file attachment would copy it into .vitest-attachments/.
    task.meta.screenshot = screenshot;
    await annotate(`eval report screenshot: ${screenshot}`);
    console.log(`eval report screenshot: ${screenshot}`);

    await failures.getByRole('link', { name: 'trace' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/traces\/[0-9a-f-]{36}$/u);
    expect(await page.locator('section.step', { hasText: '6. Outcome' }).innerText()).toMatch(/abstain · reason NO_SUPPORT/u);
    await page.close();
  });

  it('shows a question the service refuses on the Ask form, with the reason, never as raw JSON', async () => {
    const page = await operatorPage();
    await page.goto(`${base}/console/ask`);
    await page.getByLabel('Question').fill('Is the Harbor lab open?');
    await page.getByLabel('As of').fill('notadate');
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect.poll(async () => page.getByRole('alert').textContent()).toBe('as_of notadate is not a date (YYYY-MM-DD, a day that exists)');
    expect(page.url()).toMatch(/\/console\/ask$/u);
    expect(await page.getByRole('button', { name: 'Ask' }).isVisible()).toBe(true);
    await page.close();
  });

  it('keeps a session token in its cookie, not the key, and signing out ends the session', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/console/login`);
    await page.getByLabel('Operator API key').fill(operator);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console$/u);
    const [cookie] = await context.cookies();
    expect(cookie).toMatchObject({ name: 'citetrace_session', path: '/console', httpOnly: true, sameSite: 'Strict' });
    expect(cookie?.value).not.toContain(operator);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => page.url()).toMatch(/\/console\/login$/u);
    // The old token opens nothing, even if a browser kept it.
    await context.addCookies([{ ...cookie!, expires: -1 }]);
    await page.goto(`${base}/console`);
    await expect.poll(() => page.url()).toMatch(/\/console\/login$/u);
    await context.close();
  });

  it('refuses a non-operator key at sign-in', async () => {
    const patient = t!.keyFor('patient');
    const page = await browser!.newPage();
    await page.goto(`${base}/console/login`);
    await page.getByLabel('Operator API key').fill(patient);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').innerText()).toMatch(/not an operator key/u);
    await page.close();
  });
});
