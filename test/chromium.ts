import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import Chromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

/**
 * A headless Chromium that `npm ci` provides (@sparticuz/chromium ships it brotli-packed inside the npm package; no
 * system browser, no download), launched with the package's flags and only its bundled fonts, so a screenshot
 * looks the same on any machine.
 */
export async function launchChromium(): Promise<Browser> {
  const dir = await unpackedChromium();
  return chromium.launch({
    executablePath: path.join(dir, 'chromium'),
    // Its flags are made for AWS Lambda; --single-process is what Lambda's sandbox needs, and in it the browser dies when
    // its first page closes, so the next newPage() fails. Every other flag is kept.
    args: Chromium.args.filter((flag) => flag !== '--single-process'),
    env: { ...process.env, FONTCONFIG_FILE: path.join(dir, 'citetrace-fonts.conf') },
  });
}

/**
 * The package unpacks into os.tmpdir() and reuses whatever `chromium` it finds there, whichever version that is. Unpack
 * instead into a staging folder of our own and rename it to a folder named after the version: concurrent test runs
 * never see a half-written binary, and another version is never picked up.
 */
async function unpackedChromium(): Promise<string> {
  const require = createRequire(import.meta.url);
  const packageJson = path.resolve(path.dirname(require.resolve('@sparticuz/chromium')), '..', '..', 'package.json');
  const { version } = JSON.parse(await readFile(packageJson, 'utf8')) as { version: string };
  const dir = path.join(os.tmpdir(), `citetrace-chromium-${version}`);
  if (existsSync(path.join(dir, 'citetrace-fonts.conf'))) return dir;

  const staging = await mkdtemp(path.join(os.tmpdir(), 'citetrace-chromium-staging-'));
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    await Chromium.executablePath();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  // The bundled fonts.conf names /tmp/fonts; point fontconfig at this copy's fonts, and nothing of the system's.
  const fonts = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${path.join(dir, 'fonts')}</dir>\n  <cachedir>${path.join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`;
  await writeFile(path.join(staging, 'citetrace-fonts.conf'), fonts);
  try {
    await rename(staging, dir);
  } catch (error) {
    // Another run unpacked the same version first: use that one.
    await rm(staging, { recursive: true, force: true });
    if (!existsSync(path.join(dir, 'citetrace-fonts.conf'))) throw error;
  }
  return dir;
}
