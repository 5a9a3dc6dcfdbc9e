/** Turns texts into unit-length vectors. The identity fields go into the index manifest and every trace. */
export interface Embedder {
  /** e.g. "all-MiniLM-L6-v2-q8"; with the weights hash, the index refuses a different model. */
  readonly modelId: string;
  /** sha256 of the ONNX weights the vectors came from. */
  readonly weightsSha256: string;
  readonly dimensions: number;
  embed(request: { readonly texts: readonly string[]; readonly signal?: AbortSignal }): Promise<readonly Float32Array[]>;
}

/** Cosine similarity of two unit vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i += 1) dot += (a[i] ?? 0) * (b[i] ?? 0);
  return dot;
}
