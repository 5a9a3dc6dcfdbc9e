import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const semver = require('semver') as { minVersion(range: string): { version: string } | null; satisfies(version: string, range: string): boolean };
const root = new URL('../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[] }>;
};

describe('declared Node engine', () => {
  const oldest = semver.minVersion(pkg.engines.node)?.version ?? '';

  it('is accepted by every locked package (no EBADENGINE on the oldest Node the project declares)', () => {
    const refusing = Object.entries(lock.packages)
      .map(([name, entry]) => ({ name: name.replace(/^.*node_modules\//u, ''), range: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
      .filter((p): p is { name: string; range: string } => p.range !== undefined && !semver.satisfies(oldest, p.range))
      .map((p) => `${p.name} ${p.range}`);
    expect(oldest).toMatch(/^20\./u);
    expect(refusing).toEqual([]);
  });

  it('is the one README states', () => {
    const readme = readFileSync(new URL('README.md', root), 'utf8');
    expect(readme).toContain(`Node ≥ ${oldest.replace(/\.0$/u, '')}`);
  });
});
