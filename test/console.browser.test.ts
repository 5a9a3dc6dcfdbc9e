import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './chromium.js';
import { ROOT, startTestService, type TestService } from './helpers.js';

const ARTIFACTS = path.join(ROOT, 'test-artifacts');

describe('operator console in a real browser', () => {
  let t: TestService | undefined;
  let browser: Browser | undefined;
  let base: string;
  let operator: string;

  beforeAll(async () => {
    browser = await launchChromium();
    t = await startTestService();
    base = t.base;
    operator = t.keyFor('operator');
    await mkdir(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
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
    await page.getByRole('heading', { name: '3. Answer, sentence by sentence' }).waitFor();
    const answer = await page.locator('section:has(h2:text("3. Answer")) li').first().innerText();
    expect(answer).toMatch(/4 pm/u);
    expect(await page.locator('td.cited').count()).toBeGreaterThan(0);

    await page.locator('section:has(h2:text("3. Answer")) li a').first().click();
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
