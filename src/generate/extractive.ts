import { answers } from '../cite/index.js';
import { splitSentences } from '../text/index.js';
import type { Draft, GenerateRequest, Generator } from './generator.js';

export interface ExtractiveOptions {
  /** Units quoted at most: further ones of the same passage join when the judge also says they answer. */
  readonly maxUnits: number;
}

/**
 * One unit: the judge reads each unit alone, so the best one answers by itself; a second that
 * also passes is most often its neighbour about another date or site (measured on the retired
 * blind sets: a New Year's Eve question answered with the Christmas Eve row beside the right one).
 */
export const DEFAULT_EXTRACTIVE: ExtractiveOptions = { maxUnits: 1 };

/**
 * A unit's sentences, each closed by its label (an FAQ unit is a question and its answer); the first
 * led by `lead` when one is given and the two still read as one sentence.
 */
function labeled(text: string, label: string, lead?: string): string {
  const sentences = splitSentences(text);
  const [first, ...rest] = sentences;
  const led = lead === undefined || first === undefined ? undefined : `${lead}: ${first}`;
  const shown = led !== undefined && splitSentences(led).length === 1 ? [led, ...rest] : sentences;
  return shown.map((s) => `${s} [${label}]`).join(' ');
}

/**
 * The default generator: no network, no model of its own. It answers only with units copied from
 * the labeled passages (a sentence, a list item with its lead-in, a table row with its headers),
 * each closed by its label: the best of those the support judge says answer the question (more,
 * when configured, only from the same passage), or the answering units the request says to quote, in
 * its order. When none answers, it abstains instead of guessing.
 */
export function createExtractiveGenerator(options: ExtractiveOptions = DEFAULT_EXTRACTIVE): Generator {
  return {
    id: `extractive(judged units, max=${options.maxUnits})`,
    promptVersion: 'none',
    generate(request: GenerateRequest): Promise<Draft> {
      const decision = request.support;
      const offered = new Set(request.passages.map((p) => p.label));
      const usable = decision.units.filter((u) => offered.has(u.label) && answers(decision, u));
      const best = usable[0];
      if (best === undefined) {
        const top = decision.units.find((u) => offered.has(u.label))?.score ?? 0;
        return Promise.resolve({ kind: 'abstain', reason: 'NO_SUPPORT', detail: `no unit answers the question (best judge score ${top.toFixed(2)} < ${decision.judge.threshold})` });
      }
      const quoted = (request.quote ?? []).flatMap((q) => {
        const u = usable.find((o) => o.label === q.label && o.start === q.start && o.end === q.end);
        return u === undefined ? [] : [{ u, lead: q.lead }];
      });
      if (quoted.length > 0) {
        // Several pages quoted side by side (a question about every site): each unit under the words that name its site.
        return Promise.resolve({ kind: 'answer', text: quoted.map(({ u, lead }) => labeled(u.text, u.label, lead)).join(' ') });
      }
      const chosen = usable
        .filter((u) => u.label === best.label)
        .filter((u, i, all) => all.findIndex((o) => o.text === u.text) === i)
        .slice(0, options.maxUnits)
        .sort((a, b) => a.start - b.start);
      return Promise.resolve({ kind: 'answer', text: chosen.map((u) => labeled(u.text, u.label)).join(' ') });
    },
  };
}
