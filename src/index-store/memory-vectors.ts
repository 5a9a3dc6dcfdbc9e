import type { Passage } from '../domain/index.js';

/**
 * The in-process vector search of one index snapshot: every passage of a revision that can be in
 * force for some role on some date (approved and present; the in-force filter only ever allows a
 * subset of those), its vector in one matrix. Built once per snapshot, read-only afterwards.
 * LanceDB stays the store of record and serves everything else (exact audits, any scope this does
 * not cover, and every search until this is built).
 *
 * Results are LanceDB's, bit for bit: the matrix-vector product (onnxruntime's MatMul through
 * transformers.js, the library the embedder already loads) only shortlists; every row that can
 * reach the top `limit` is then scored by `lanceCosineDistance`, the exact float32 arithmetic of
 * LanceDB's flat cosine search, and ties keep table order (test/in-process-search.test.ts pins
 * both against LanceDB's own results). The fused multiply-add is emulated in double precision
 * rounded once to float32, which can differ from a true one only by a double rounding that the
 * tests have not met.
 */
export interface VectorRows {
  /** The revisions whose every passage is below (a revision without passages included). */
  readonly revisions: ReadonlySet<string>;
  readonly passages: readonly Passage[];
  /** Row-major, `dimensions` floats per passage, in table order. */
  readonly vectors: Float32Array;
  readonly dimensions: number;
}

export interface MemoryVectorSearch {
  readonly size: number;
  /** Whether every passage of these revisions is in the structure. */
  covers(revisions: ReadonlySet<string>): boolean;
  search(request: { readonly vector: Float32Array; readonly allowed: ReadonlySet<string>; readonly limit: number }): Promise<readonly { readonly passage: Passage; readonly score: number }[]>;
}

const LANES = 16;
const f = Math.fround;

/** LanceDB's f32x16 fused multiply-add accumulators over one or two vectors (lance-linalg cosine_fast). */
function lanes(x: Float32Array, xOffset: number, y: Float32Array, yOffset: number, dimensions: number): Float32Array {
  const acc = new Float32Array(LANES);
  for (let i = 0; i < dimensions; i += 1) {
    const j = i % LANES;
    // a*b of two floats is exact in a double, so one rounding to float32 is the fused multiply-add.
    acc[j] = f((x[xOffset + i] as number) * (y[yOffset + i] as number) + (acc[j] as number));
  }
  return acc;
}

/** reduce_sum of a 16-lane register: halves added pairwise (8, 4, 2, 1). */
function reduceHalves(acc: Float32Array): number {
  const v = Array.from(acc);
  for (let width = LANES / 2; width >= 1; width /= 2) for (let i = 0; i < width; i += 1) v[i] = f((v[i] as number) + (v[i + width] as number));
  return v[0] as number;
}

/** norm_l2 of the query: 16 lanes of separate multiply and add (no fused multiply-add here), summed lane after lane. */
function queryNorm(q: Float32Array, dimensions: number): number {
  const acc = new Float32Array(LANES);
  for (let i = 0; i < dimensions; i += 1) {
    const v = q[i] as number;
    acc[i % LANES] = f((acc[i % LANES] as number) + f(v * v));
  }
  let sum = 0;
  for (const v of acc) sum = f(sum + v);
  return f(Math.sqrt(sum));
}

/** LanceDB's float32 cosine distance of the query (norm known) to one stored row: 1 - xy / x_norm / sqrt(y_norm). */
export function lanceCosineDistance(q: Float32Array, qNorm: number, rows: Float32Array, row: number, dimensions: number): number {
  const offset = row * dimensions;
  const xy = reduceHalves(lanes(q, 0, rows, offset, dimensions));
  const yy = reduceHalves(lanes(rows, offset, rows, offset, dimensions));
  return f(1 - f(f(xy / qNorm) / f(Math.sqrt(yy))));
}

/** Approximate scores need not be exact: a row within this of the cut-off is re-scored exactly. */
const MARGIN = 1e-4;

export async function createMemoryVectorSearch(rows: VectorRows): Promise<MemoryVectorSearch> {
  const { revisions, passages, vectors, dimensions } = rows;
  const n = passages.length;
  const { Tensor, matmul } = await import('@huggingface/transformers');
  // One [n, d] x [d, 1] product per question over the stored rows themselves (no second copy of the vectors).
  const norms = new Float32Array(n);
  for (let r = 0; r < n; r += 1) {
    let sq = 0;
    for (let i = 0; i < dimensions; i += 1) sq += (vectors[r * dimensions + i] as number) ** 2;
    norms[r] = Math.sqrt(sq);
  }
  const matrix = new Tensor('float32', vectors, [n, dimensions]);
  const revisionOf = passages.map((p) => p.revision as string);
  // Which rows a scope may see, computed once per allowed set (the index keeps one set per scope).
  const masks = new WeakMap<ReadonlySet<string>, Uint8Array>();
  const maskOf = (allowed: ReadonlySet<string>): Uint8Array => {
    let mask = masks.get(allowed);
    if (mask === undefined) {
      mask = Uint8Array.from(revisionOf, (r) => (allowed.has(r) ? 1 : 0));
      masks.set(allowed, mask);
    }
    return mask;
  };

  return {
    size: n,
    covers: (allowed) => [...allowed].every((r) => revisions.has(r)),
    async search({ vector, allowed, limit }) {
      if (n === 0 || limit <= 0) return [];
      const mask = maskOf(allowed);
      const product = await matmul(matrix, new Tensor('float32', vector, [dimensions, 1]));
      const dots = product.data as Float32Array;
      let qq = 0;
      for (let i = 0; i < dimensions; i += 1) qq += (vector[i] as number) ** 2;
      const qLength = Math.sqrt(qq);
      // Approximate distance of every allowed row; the `limit` best are kept in order, the worst of them sets the cut-off.
      const approx = new Float64Array(n).fill(Infinity);
      const best: number[] = [];
      for (let r = 0; r < n; r += 1) {
        if (mask[r] === 0) continue;
        const d = 1 - (dots[r] as number) / (qLength * (norms[r] as number));
        approx[r] = d;
        if (best.length < limit || d < (best[best.length - 1] as number)) {
          let i = best.length < limit ? best.length : best.length - 1;
          while (i > 0 && (best[i - 1] as number) > d) {
            best[i] = best[i - 1] as number;
            i -= 1;
          }
          best[i] = d;
        }
      }
      if (best.length === 0) return [];
      const cutoff = (best[best.length - 1] as number) + MARGIN;
      const qNorm = queryNorm(vector, dimensions);
      const exact: { row: number; distance: number }[] = [];
      for (let r = 0; r < n; r += 1) if ((approx[r] as number) <= cutoff) exact.push({ row: r, distance: lanceCosineDistance(vector, qNorm, vectors, r, dimensions) });
      exact.sort((a, b) => a.distance - b.distance || a.row - b.row);
      return exact.slice(0, limit).map((c) => ({ passage: passages[c.row] as Passage, score: 1 - c.distance }));
    },
  };
}
