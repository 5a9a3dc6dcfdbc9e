import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ROOT, runBin, tempDir } from './helpers.js';

/**
 * Every package file the process loads, one `loaded URL` line each on stderr: ESM loads through a
 * module hook (written straight to fd 2 from the hooks thread) and CommonJS ones from the require
 * cache at exit (createRequire and require() inside packages do not pass the hook).
 */
const HOOK = `import { writeSync } from 'node:fs';
export async function load(url, context, next) { if (url.includes('/node_modules/') || url.includes('/dist/')) writeSync(2, 'loaded ' + url + '\\n'); return next(url, context); }`;
const PRELOAD = `import Module, { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
process.on('exit', () => { for (const file of Object.keys(Module._cache)) process.stderr.write('loaded ' + file + '\\n'); });`;

const HEAVY = ['@lancedb', 'apache-arrow', 'onnxruntime-node', '@huggingface', 'fastify', '@opentelemetry', 'pg', 'better-sqlite3', 'compromise', 'openai', 'unified', 'chokidar', 'tsx'].map(
  (name) => `/node_modules/${name}/`,
);

describe('CLI start-up (compiled build)', () => {
  it('--help runs the compiled JavaScript in dist/ and loads none of the heavy modules', async () => {
    const result = await runBin(['--help'], { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(PRELOAD)}` });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: citetrace/u);
    const loaded = result.stderr.split('\n').filter((line) => line.startsWith('loaded '));
    expect(loaded.some((line) => line.includes('/dist/cli/main.js'))).toBe(true);
    expect(loaded.filter((line) => HEAVY.some((name) => line.includes(name)))).toEqual([]);
    // dist/ is bundled (scripts/build.ts): what each loaded output holds is in esbuild's metafile.
    const meta = JSON.parse(await readFile(path.join(ROOT, 'dist', 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, unknown> }> };
    const files = loaded.map((line) => line.slice('loaded '.length)).map((file) => (file.startsWith('file:') ? fileURLToPath(file) : file));
    const outputs = files.map((file) => path.relative(ROOT, file)).filter((file) => file.startsWith('dist/'));
    const inputs = outputs.flatMap((file) => Object.keys(meta.outputs[file]?.inputs ?? {}));
    expect(inputs).toContain('src/cli/main.ts');
    expect(inputs.filter((input) => HEAVY.some((name) => `/${input}`.includes(name)))).toEqual([]);
  });

  it('without dist/ the executable says so in one line and exits 1', async () => {
    const dir = await tempDir('citetrace-nodist-');
    await mkdir(path.join(dir, 'bin'));
    await copyFile(path.join(ROOT, 'bin', 'citetrace.js'), path.join(dir, 'bin', 'citetrace.js'));
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(process.execPath, [path.join(dir, 'bin', 'citetrace.js'), '--help'], { cwd: dir }, (error, _stdout, err) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stderr: err });
      });
    });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/run npm ci or npm run build/u);
  });
});
