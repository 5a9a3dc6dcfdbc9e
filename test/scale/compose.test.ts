import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers.js';

/** deploy/docker-compose.yml is documentation (no Docker here): keep it to the settings citetrace reads. */
describe('deploy/docker-compose.yml', () => {
  it('sets only variables the configuration reads, and puts every serving instance behind the load balancer', async () => {
    const compose = parse(await readFile(path.join(ROOT, 'deploy', 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string>; command?: string[] }>;
    };
    const config = await readFile(path.join(ROOT, 'src', 'config', 'index.ts'), 'utf8');
    const ours = Object.values(compose.services)
      .flatMap((service) => Object.keys(service.environment ?? {}))
      .filter((name) => /^(CITETRACE|AWS)_/u.test(name));
    expect(ours).toContain('CITETRACE_INDEX');
    for (const name of new Set(ours)) expect(config, name).toContain(`env.${name}`);
    const apis = Object.entries(compose.services).filter(([, service]) => service.command?.[0] === 'serve').map(([name]) => name);
    expect(apis).toHaveLength(3);
    const nginx = await readFile(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
    for (const api of apis) expect(nginx).toContain(`server ${api}:8080`);
  });
});
