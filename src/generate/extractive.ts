import { MIN_COVERAGE, scoreSentences } from '../cite/index.js';
import type { Draft, GenerateRequest, Generator } from './generator.js';

export interface ExtractiveOptions {
  /** Least coverage of the question a sentence must reach to be used. */
  readonly minCoverage: number;
  /** A further sentence joins the answer when it reaches this share of the best sentence's coverage. */
  readonly companionRatio: number;
  readonly maxSentences: number;
}

export const DEFAULT_EXTRACTIVE: ExtractiveOptions = { minCoverage: MIN_COVERAGE, companionRatio: 0.8, maxSentences: 2 };

/**
 * The default generator: no network, no model. It answers only with sentences copied verbatim
 * from the labeled passages, each closed by its label, chosen by how much of the question they
 * state. When no sentence states enough of the question, it abstains instead of guessing.
 */
export function createExtractiveGenerator(options: ExtractiveOptions = DEFAULT_EXTRACTIVE): Generator {
  return {
    id: `extractive(minCoverage=${options.minCoverage},companion=${options.companionRatio},max=${options.maxSentences})`,
    promptVersion: 'none',
    generate(request: GenerateRequest): Promise<Draft> {
      const scored = scoreSentences(request.analysis, request.passages);
      const best = scored[0];
      if (best === undefined || best.coverage < options.minCoverage) {
        return Promise.resolve({
          kind: 'abstain',
          reason: 'NO_SUPPORT',
          detail: `best sentence covers ${(best?.coverage ?? 0).toFixed(2)} of the question (< ${options.minCoverage})`,
        });
      }
      const chosen = scored
        .filter((s) => s === best || (s.coverage >= best.coverage * options.companionRatio && s.coverage >= options.minCoverage))
        .filter((s, i, all) => all.findIndex((o) => o.text === s.text) === i)
        .slice(0, options.maxSentences);
      return Promise.resolve({ kind: 'answer', text: chosen.map((s) => `${s.text} [${s.label}]`).join(' ') });
    },
  };
}
