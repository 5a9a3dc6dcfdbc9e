import { loadConfig } from '../src/config/index.js';
import { provisionModel } from '../src/embed/index.js';

/** Provision the real embedding model once, before any worker starts (a download only on a fresh machine). */
export default async function setup(): Promise<void> {
  const config = loadConfig({ env: process.env });
  await provisionModel({
    cacheDir: config.modelCacheDir,
    modelDir: config.modelDir,
    mavenRepo: config.mavenRepo,
    allowHub: config.allowHub,
    onProgress: (message) => process.stderr.write(`${message}\n`),
  });
}
