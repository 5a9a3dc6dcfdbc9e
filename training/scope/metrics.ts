import { SCOPE_CLASSES, type ScopeClass } from '../../src/scope/index.js';

/** A route taken: one of the classes, or `language` (a message the assistant cannot read, with 911 / 988 in it). */
export type Route = ScopeClass | 'language';
const ROUTES: readonly Route[] = [...SCOPE_CLASSES, 'language'];

export type Confusion = Record<ScopeClass, Record<Route, number>>;

/** Rows: the true class; columns: the route taken. */
export function confusion(truth: readonly ScopeClass[], predicted: readonly Route[]): Confusion {
  const m = Object.fromEntries(SCOPE_CLASSES.map((t) => [t, Object.fromEntries(ROUTES.map((p) => [p, 0]))])) as Confusion;
  truth.forEach((t, i) => {
    const p = predicted[i] ?? 'admin';
    m[t][p] += 1;
  });
  return m;
}

export function perClass(m: Confusion): { label: ScopeClass; precision: number; recall: number; support: number }[] {
  return SCOPE_CLASSES.map((c) => {
    const tp = m[c][c];
    const support = ROUTES.reduce((s, p) => s + m[c][p], 0);
    const predicted = SCOPE_CLASSES.reduce((s, t) => s + m[t][c], 0);
    return { label: c, precision: predicted === 0 ? 1 : tp / predicted, recall: support === 0 ? 1 : tp / support, support };
  });
}

export function formatConfusion(m: Confusion): string {
  const head = `  ${'true \\ route'.padEnd(13)}${ROUTES.map((c) => c.padStart(10)).join('')}`;
  return [head, ...SCOPE_CLASSES.map((t) => `  ${t.padEnd(13)}${ROUTES.map((p) => String(m[t][p]).padStart(10)).join('')}`)].join('\n');
}
