import { readdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, tempDir } from './helpers.js';

describe('serving on a busy port', () => {
  let occupied: Server;
  let port: number;

  beforeAll(async () => {
    occupied = createServer();
    await new Promise<void>((resolve) => occupied.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const address = occupied.address();
    port = typeof address === 'object' && address !== null ? address.port : 0;
  });
  afterAll(() => new Promise((resolve) => occupied.close(resolve)));

  const cases: [string, (port: number) => string[], (port: number) => Record<string, string>][] = [
    ['citetrace serve --port', (p) => ['serve', '--port', String(p)], () => ({})],
    ['npm start (demo, PORT)', () => ['demo'], (p) => ({ PORT: String(p) })],
  ];
  it.each(cases)('%s exits 2 with one line naming host and port, no stack, nothing written', async (_name, args, env) => {
    const dataDir = await tempDir('citetrace-busy-');
    const result = await runBin(args(port), { CITETRACE_DATA: dataDir, HOST: '127.0.0.1', ...env(port) });
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([`citetrace: cannot listen on 127.0.0.1:${port}: the port is already in use (choose another with --port or PORT)`]);
    expect(result.stdout).toBe('');
    expect(await readdir(dataDir)).toEqual([]);
  });
});
