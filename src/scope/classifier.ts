import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { loadPinnedClassifier, ModelManifestSchema, type PinnedModelFolder, type SessionPlacement } from '../model/index.js';
import type { UrgentClass } from './floor.js';

/** What a message asks for, as the router sees it. */
export const SCOPE_CLASSES = ['admin', 'clinical', 'emergency', 'crisis'] as const;
export type ScopeClass = (typeof SCOPE_CLASSES)[number];
export type ScopeScores = Readonly<Record<ScopeClass, number>>;

/** A learned message classifier. Identity fields and thresholds go into every trace. */
export interface ScopeClassifier {
  readonly modelId: string;
  /** sha256 of the manifest, which pins every file of the model and the thresholds. */
  readonly sha256: string;
  readonly thresholds: { readonly urgent: number; readonly clinical: number };
  /** Class probabilities for each (normalized) text. */
  classify(texts: readonly string[]): Promise<readonly ScopeScores[]>;
}

const ManifestSchema = ModelManifestSchema.extend({
  classes: z.array(z.enum(SCOPE_CLASSES)).length(SCOPE_CLASSES.length),
  thresholds: z.object({ urgent: z.number().min(0).max(1), clinical: z.number().min(0).max(1) }),
});

/**
 * The shipped model: MiniLM-L6 fine-tuned as a scope classifier by training/scope, int8 ONNX, and
 * the pinned sha256 of its manifest (which holds the hash of every other file and the calibrated
 * thresholds). A missing or altered file stops start-up; nothing falls back.
 */
export const SCOPE_MODEL: PinnedModelFolder = {
  dir: fileURLToPath(new URL('../../models/scope', import.meta.url)),
  manifestSha256: '4780f429fa40338ffb2f6a2f522be40762ea7c965708e1fe5ffa0fd2f9e61e36',
};

/**
 * The second shipped model, read beside the first only to add an emergency or crisis routing (candidate
 * S, docs/scope-routing.md): the same recipe as SCOPE_MODEL plus acute emergencies and crises written
 * as a booking question, whose misses are mostly other messages than the first model's.
 */
export const SCOPE_URGENT_MODEL: PinnedModelFolder = {
  dir: fileURLToPath(new URL('../../models/scope-urgent', import.meta.url)),
  manifestSha256: '1807cc61266a7050d474062ba5df5d4d685d677dbab5e956212e519bcc29f726',
};

/** The kinds of routing the shipped second classifier may add (docs/scope-routing.md, candidates S and S″). */
export const SECOND_READER_ADDS: readonly UrgentClass[] = ['emergency', 'crisis'];

/** Load the shipped (or a given) model folder; see `loadPinnedClassifier` for the checks. */
export async function loadScopeClassifier(options: PinnedModelFolder & SessionPlacement): Promise<ScopeClassifier> {
  const model = await loadPinnedClassifier({ folder: options, schema: ManifestSchema, what: 'scope classifier', session: options });
  const { classes } = model.manifest;
  return {
    modelId: model.manifest.model_id,
    sha256: model.sha256,
    thresholds: model.manifest.thresholds,
    async classify(texts) {
      const probabilities = await model.probabilities(texts);
      return probabilities.map((p) => {
        const scores = { admin: 0, clinical: 0, emergency: 0, crisis: 0 };
        classes.forEach((c, j) => (scores[c] = p[j] ?? 0));
        return scores;
      });
    },
  };
}
