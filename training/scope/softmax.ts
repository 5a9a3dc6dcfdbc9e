/**
 * A small dense head (linear, or one ReLU hidden layer) trained with class-balanced softmax
 * cross-entropy, L2 and Adam (Kingma and Ba, 2015) on mini-batches. Plain arrays: the data is a few
 * thousand 384-dimensional vectors, which needs no framework.
 */
export interface Layer {
  weights: number[][];
  bias: number[];
}

interface Param {
  w: Float64Array;
  m: Float64Array;
  v: Float64Array;
  g: Float64Array;
}

const param = (n: number, scale: number, rand: () => number): Param => {
  const w = new Float64Array(n);
  for (let i = 0; i < n; i += 1) w[i] = (rand() * 2 - 1) * scale;
  return { w, m: new Float64Array(n), v: new Float64Array(n), g: new Float64Array(n) };
};

export function trainHead(options: {
  readonly x: readonly Float32Array[];
  readonly y: readonly number[];
  readonly classes: number;
  /** 0: a linear softmax head. */
  readonly hidden: number;
  readonly epochs: number;
  readonly l2: number;
  readonly learningRate: number;
  readonly rand: () => number;
  readonly batch?: number;
}): Layer[] {
  const { x, y, classes, hidden, rand } = options;
  const dim = x[0]?.length ?? 0;
  const sizes = hidden > 0 ? [dim, hidden, classes] : [dim, classes];
  const params = sizes.slice(1).map((out, l) => {
    const inputs = sizes[l] ?? 0;
    return { out, inputs, w: param(out * inputs, Math.sqrt(6 / (inputs + out)), rand), b: param(out, 0, rand) };
  });
  // Class-balanced weights: each class contributes equally to the loss.
  const counts = new Array<number>(classes).fill(0);
  for (const c of y) counts[c] = (counts[c] ?? 0) + 1;
  const classWeight = counts.map((n) => (n === 0 ? 0 : y.length / (classes * n)));
  const batch = options.batch ?? 64;
  const order = x.map((_, i) => i);
  let step = 0;
  for (let epoch = 0; epoch < options.epochs; epoch += 1) {
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
    }
    let loss = 0;
    for (let start = 0; start < order.length; start += batch) {
      for (const p of params) {
        p.w.g.fill(0);
        p.b.g.fill(0);
      }
      const rows = order.slice(start, start + batch);
      for (const r of rows) {
        const input = x[r] ?? new Float32Array(dim);
        // forward
        const acts: Float64Array[] = [Float64Array.from(input)];
        for (const [l, p] of params.entries()) {
          const a = acts[l] ?? new Float64Array(0);
          const z = new Float64Array(p.out);
          for (let o = 0; o < p.out; o += 1) {
            let s = p.b.w[o] ?? 0;
            const off = o * p.inputs;
            for (let k = 0; k < p.inputs; k += 1) s += (p.w.w[off + k] ?? 0) * (a[k] ?? 0);
            z[o] = l < params.length - 1 ? Math.max(0, s) : s;
          }
          acts.push(z);
        }
        const logits = acts[acts.length - 1] ?? new Float64Array(0);
        const max = Math.max(...logits);
        const exps = logits.map((v) => Math.exp(v - max));
        const total = exps.reduce((a, b) => a + b, 0);
        const target = y[r] ?? 0;
        const cw = classWeight[target] ?? 1;
        loss -= cw * Math.log((exps[target] ?? 0) / total + 1e-12);
        // backward
        let delta = Float64Array.from(exps, (e, c) => cw * (e / total - (c === target ? 1 : 0)));
        for (let l = params.length - 1; l >= 0; l -= 1) {
          const p = params[l];
          const a = acts[l];
          if (p === undefined || a === undefined) continue;
          const prev = new Float64Array(p.inputs);
          for (let o = 0; o < p.out; o += 1) {
            const d = delta[o] ?? 0;
            if (d === 0) continue;
            p.b.g[o] = (p.b.g[o] ?? 0) + d;
            const off = o * p.inputs;
            for (let k = 0; k < p.inputs; k += 1) {
              p.w.g[off + k] = (p.w.g[off + k] ?? 0) + d * (a[k] ?? 0);
              prev[k] = (prev[k] ?? 0) + d * (p.w.w[off + k] ?? 0);
            }
          }
          if (l > 0) delta = prev.map((g, k) => ((a[k] ?? 0) > 0 ? g : 0));
        }
      }
      step += 1;
      const lr = options.learningRate;
      for (const p of params) {
        for (const [q, decay] of [[p.w, options.l2] as const, [p.b, 0] as const]) {
          for (let i = 0; i < q.w.length; i += 1) {
            const g = (q.g[i] ?? 0) / rows.length + decay * (q.w[i] ?? 0);
            q.m[i] = 0.9 * (q.m[i] ?? 0) + 0.1 * g;
            q.v[i] = 0.999 * (q.v[i] ?? 0) + 0.001 * g * g;
            const mHat = (q.m[i] ?? 0) / (1 - 0.9 ** step);
            const vHat = (q.v[i] ?? 0) / (1 - 0.999 ** step);
            q.w[i] = (q.w[i] ?? 0) - (lr * mHat) / (Math.sqrt(vHat) + 1e-8);
          }
        }
      }
    }
    if (epoch % 10 === 0 || epoch === options.epochs - 1) console.log(`epoch ${epoch} loss ${(loss / order.length).toFixed(4)}`);
  }
  const round = (v: number): number => Math.round(v * 1e6) / 1e6;
  return params.map((p) => ({
    weights: Array.from({ length: p.out }, (_, o) => Array.from(p.w.w.subarray(o * p.inputs, (o + 1) * p.inputs), round)),
    bias: Array.from(p.b.w, round),
  }));
}
