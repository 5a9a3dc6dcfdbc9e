import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { loadPinnedClassifier, ModelManifestSchema, type PinnedModelFolder, type SessionPlacement } from '../model/index.js';

/**
 * The support judge: does this text, read alone, answer this question? A cross-encoder trained
 * by training/judge on hand-written fictional health systems; its score is the probability of
 * "answers", and the calibrated threshold that turns it into a decision ships in its manifest.
 */
export interface SupportJudge {
  readonly modelId: string;
  /** sha256 of the manifest, which pins the model's files and its threshold. */
  readonly sha256: string;
  readonly threshold: number;
  /** P(answers) for each candidate text (a unit read under its page title and headings). */
  score(question: string, texts: readonly string[]): Promise<readonly number[]>;
}

const ManifestSchema = ModelManifestSchema.extend({
  labels: z.tuple([z.literal('other'), z.literal('answers')]),
  threshold: z.number().gt(0).lt(1),
});

/** The shipped judge (int8 ONNX in models/judge); the manifest's hash is pinned here, every other file by the manifest. */
export const JUDGE_MODEL: PinnedModelFolder = {
  dir: fileURLToPath(new URL('../../models/judge', import.meta.url)),
  manifestSha256: 'da90ff145298b23a3f573e80f50df7ae9f50c1eb95bc336267f4947045abc8e1',
};

export async function loadSupportJudge(options: PinnedModelFolder & SessionPlacement): Promise<SupportJudge> {
  const model = await loadPinnedClassifier({ folder: options, schema: ManifestSchema, what: 'support judge', session: options });
  return {
    modelId: model.manifest.model_id,
    sha256: model.sha256,
    threshold: model.manifest.threshold,
    async score(question, texts) {
      const probabilities = await model.probabilities(texts.map(() => question), texts);
      return probabilities.map((p) => p[1] ?? 0);
    },
  };
}
