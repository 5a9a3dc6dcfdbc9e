import { addresses, MIN_COVERAGE } from '../cite/index.js';
import type { Draft, GenerateRequest, Generator } from './generator.js';

export interface ExtractiveOptions {
  /** A further sentence joins the answer when it reaches this share of the best sentence's coverage. */
  readonly companionRatio: number;
  readonly maxSentences: number;
}

export const DEFAULT_EXTRACTIVE: ExtractiveOptions = { companionRatio: 0.8, maxSentences: 2 };

/**
 * The default generator: no network, no model. It answers only with sentences copied verbatim
 * from the labeled passages, each closed by its label, chosen among those that address the
 * question (the support decision's own test). When none does, it abstains instead of guessing.
 */
export function createExtractiveGenerator(options: ExtractiveOptions = DEFAULT_EXTRACTIVE): Generator {
  return {
    id: `extractive(minCoverage=${MIN_COVERAGE},companion=${options.companionRatio},max=${options.maxSentences})`,
    promptVersion: 'none',
    generate(request: GenerateRequest): Promise<Draft> {
      const decision = request.support;
      const usable = decision.unnamed.length > 0 ? [] : decision.scored.filter(addresses);
      const best = usable[0];
      if (best === undefined) {
        return Promise.resolve({ kind: 'abstain', reason: 'NO_SUPPORT', detail: `no sentence addresses the question (best coverage ${(decision.scored[0]?.coverage ?? 0).toFixed(2)})` });
      }
      const chosen = usable
        .filter((s) => s === best || s.coverage >= best.coverage * options.companionRatio)
        .filter((s, i, all) => all.findIndex((o) => o.text === s.text) === i)
        .slice(0, options.maxSentences);
      return Promise.resolve({ kind: 'answer', text: chosen.map((s) => `${s.text} [${s.label}]`).join(' ') });
    },
  };
}
