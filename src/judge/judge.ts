import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { loadPinnedClassifier, ModelManifestSchema, readPinnedFile, type PinnedModelFolder, type SessionPlacement } from '../model/index.js';

/**
 * The support judge: does this text, read alone, answer this question? Cross-encoders trained by
 * training/judge on hand-written fictional health systems; its score is the probability of
 * "answers", and the calibrated threshold that turns it into a decision ships in its manifest.
 */
export interface SupportJudge {
  readonly modelId: string;
  /** sha256 of the manifest, which pins the model's files (or its members' manifests) and its threshold. */
  readonly sha256: string;
  readonly threshold: number;
  /** P(answers) for each candidate text (a unit read under its page title and headings). */
  score(question: string, texts: readonly string[]): Promise<readonly number[]>;
}

const MemberManifestSchema = ModelManifestSchema.extend({
  labels: z.tuple([z.literal('other'), z.literal('answers')]),
  threshold: z.number().gt(0).lt(1),
});

const Member = z.object({ dir: z.string().regex(/^[a-z0-9][a-z0-9-]*$/u), manifest_sha256: z.string().regex(/^[0-9a-f]{64}$/u) });

/**
 * Two trained cross-encoders read together (training/judge/cascade.py): the first reads every unit,
 * the second each unit the first scores at `second_from` or more; such a unit's score is the
 * sigmoid of the mean of the two models' logits, any other unit keeps the first's score. Each member
 * is a model folder beside the manifest, pinned by its manifest's sha256.
 */
const CascadeManifestSchema = z.object({
  model_id: z.string().min(1),
  combine: z.literal('mean-logit'),
  second_from: z.number().gt(0).lt(1),
  threshold: z.number().gt(0).lt(1),
  members: z.object({ first: Member, second: Member }),
});

/** The shipped judge (models/judge: the cascade's manifest and its two int8 ONNX members); the manifest's hash is pinned here, everything else by it. */
export const JUDGE_MODEL: PinnedModelFolder = {
  dir: fileURLToPath(new URL('../../models/judge', import.meta.url)),
  manifestSha256: '3edeca527f38c5a0a823c31ec720ae6550c3652cb466bc87db59a49472d9fd1d',
};

const logit = (p: readonly number[]): number => Math.log(p[1] ?? 0) - Math.log(p[0] ?? 0);

export async function loadSupportJudge(options: PinnedModelFolder & SessionPlacement): Promise<SupportJudge> {
  const manifestFile = path.join(options.dir, 'manifest.json');
  const manifest = CascadeManifestSchema.parse(JSON.parse(readPinnedFile('support judge', manifestFile, options.manifestSha256).toString('utf8')));
  // One build for the caller to wait on, however many sessions the judge has.
  const builds: Promise<unknown>[] = [];
  const placement: SessionPlacement = { ...options, ...(options.onBuilding === undefined ? {} : { onBuilding: (built: Promise<unknown>) => builds.push(built) }) };
  const member = (m: z.infer<typeof Member>) =>
    loadPinnedClassifier({ folder: { dir: path.join(options.dir, m.dir), manifestSha256: m.manifest_sha256 }, schema: MemberManifestSchema, what: 'support judge', session: placement });
  const [first, second] = await Promise.all([member(manifest.members.first), member(manifest.members.second)]);
  const built = Promise.all(builds);
  built.catch(() => undefined); // each member's calls report a failed build too
  options.onBuilding?.(built);
  return {
    modelId: manifest.model_id,
    sha256: options.manifestSha256,
    threshold: manifest.threshold,
    async score(question, texts) {
      const firstP = await first.probabilities(texts.map(() => question), texts);
      const again = texts.flatMap((_, i) => ((firstP[i]?.[1] ?? 0) >= manifest.second_from ? [i] : []));
      const secondP = again.length === 0 ? [] : await second.probabilities(again.map(() => question), again.map((i) => texts[i] ?? ''));
      const mean = new Map(again.map((i, j) => [i, 1 / (1 + Math.exp(-(logit(firstP[i] ?? []) + logit(secondP[j] ?? [])) / 2))]));
      return firstP.map((p, i) => mean.get(i) ?? p[1] ?? 0);
    },
  };
}
