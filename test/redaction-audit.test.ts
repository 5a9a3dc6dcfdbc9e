import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readManifest } from '../src/index-store/index.js';
import { ingestRepository, parsePolicyFile, readAssistantConfig } from '../src/ingest/index.js';
import { deploymentNames, policyNames, properNames } from '../src/policy/index.js';
import { createRedactor } from '../src/trace/index.js';
import { CLOCK, copyCorpus, DEMO_CORPUS, hashEmbedder, tempDir } from './helpers.js';

/**
 * Audit of issue 17, finding 3: identifiers that reached the trace store, and providers named in
 * the policies that did not. The deployment's known names come from assistant.yaml and from the
 * policies (policyNames, kept in the index manifest at ingest).
 */
const PROVIDERS = new URL('./fixtures/providers/harbor-providers.md', import.meta.url);

async function redactor(): Promise<(text: string) => string> {
  const assistant = await readAssistantConfig(DEMO_CORPUS);
  const parsed = parsePolicyFile({ file: 'harbor-providers.md', bytes: await readFile(PROVIDERS), assistant });
  if (!parsed.ok) throw new Error(parsed.problem.message);
  const names = policyNames([parsed.revision]);
  const redact = createRedactor([...deploymentNames(assistant), ...names]);
  return (text) => redact(text).text;
}

describe('redaction: the audit\'s leaks', () => {
  it.each([
    ['can anneliese vandermeer book a visit for me at Harbor Clinic?', ['anneliese', 'vandermeer']],
    ["i'm priya raman and my birthday is 11/02/1990, can i book a physical?", ['priya', 'raman', '1990']],
    ['send it to PMB 220, 77 Cedar Hollow', ['220', 'Cedar Hollow']],
    ['my address is 9 Quarry Hill, Millbrook, which clinic is closest?', ['Quarry Hill']],
    ['my birthday is march third 1961, can I register as a new patient?', ['march third', '1961']],
    ['my insurance card says BCX 4471 9022, is the no-show fee billed to insurance?', ['4471', '9022']],
    ['record number 447190, how do I get my records?', ['447190']],
  ])('%s', async (question, secrets) => {
    const out = (await redactor())(question);
    for (const s of secrets) expect(out, out).not.toContain(s);
  });

  it('keeps the providers the policies name, and the sites assistant.yaml names', async () => {
    const redact = await redactor();
    for (const q of ['Is Dr. Anita Okafor at Harbor Clinic on Fridays?', 'Does Grace Lin see patients on Tuesdays at Harbor Clinic?', 'Does Dr. Okafor see patients at Bayview Pavilion on Saturday?', 'does dr. okafor see patients on saturday?']) {
      expect(redact(q)).toBe(q);
    }
    // A patient beside a provider is still removed.
    expect(redact("I'm Maria Gonzalez, can I see Dr. Anita Okafor?")).toBe("I'm [NAME], can I see Dr. Anita Okafor?");
  });

  it("keeps what the policies call their services and places, in running text", () => {
    const body = 'Ruta Verde is our free ride van. Call the Ruta Verde line at 555-0186; it does not go to Kessling Valley Regional. Book it in LanternLink.\n\n## Parking And Transport\n';
    expect(properNames([{ body }])).toEqual(['Kessling Valley Regional', 'LanternLink', 'Ruta Verde']);
    const redact = createRedactor(properNames([{ body }]));
    for (const q of ['Does the Ruta Verde van stop at the clinic?', 'Can Ruta Verde take me to Kessling Valley Regional?', "How do I get proxy access to my husband's LanternLink account?"]) expect(redact(q).text).toBe(q);
    expect(redact("I'm Maria Gonzalez, can Ruta Verde pick me up?").text).toBe("I'm [NAME], can Ruta Verde pick me up?");
  });

  it('leaves ordinary questions alone', async () => {
    const redact = await redactor();
    for (const q of ['Is there a heart doctor who comes out to Eastside?', 'contractions every 5 min, first baby. do we go in now?', 'i use a walker - is there an elevator?', 'can physical therapy book a visit?', 'can my husband book a visit?', 'this is about my bill', "i'm new here, can I book?", 'can flu shots be given at Eastside?', 'Does the Wharf Street Garage validate parking?', 'Is the lab open at 7 am?']) {
      expect(redact(q)).toBe(q);
    }
  });
});

describe('the policies\' names, kept by ingest', () => {
  it('are written into the index manifest, for the redactor the runtime builds (src/main.ts)', async () => {
    const root = await copyCorpus();
    await copyFile(fileURLToPath(PROVIDERS), path.join(root, 'clinics', 'harbor-providers.md'));
    const dataDir = path.join(await tempDir(), 'data');
    await ingestRepository({ root, dataDir, embedder: hashEmbedder(), now: CLOCK() });
    const manifest = await readManifest(dataDir);
    expect(manifest?.names).toEqual(expect.arrayContaining(['Dr. Anita Okafor', 'Dr. Okafor', 'Grace Lin']));
  });
});
