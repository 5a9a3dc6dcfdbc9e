import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createBrotliDecompress } from 'node:zlib';
import Chromium from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

const FONTS_CONF = 'citetrace-fonts.conf';
/** Written last into a complete unpacked folder. */
const UNPACKED = 'citetrace-unpacked';

/**
 * A headless Chromium that `npm ci` provides (@sparticuz/chromium ships it brotli-packed inside the npm package; no
 * system browser, no download), launched with the package's flags, the shared libraries it ships beside it (NSS and
 * expat, which a minimal Debian lacks) and only its bundled fonts, so a screenshot looks the same on any machine.
 */
export async function launchChromium(): Promise<Browser> {
  const dir = await unpackedChromium();
  return chromium.launch({
    executablePath: path.join(dir, 'chromium'),
    // Its flags are made for AWS Lambda; --single-process is what Lambda's sandbox needs, and in it the browser dies when
    // its first page closes, so the next newPage() fails. Every other flag is kept.
    args: Chromium.args.filter((flag) => flag !== '--single-process'),
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [path.join(dir, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_FILE: path.join(dir, FONTS_CONF),
    },
  });
}

/**
 * The package unpacks into os.tmpdir() and reuses whatever `chromium` it finds there, whichever version that is. Unpack
 * instead into a staging folder of our own and rename it to a folder named after the version: concurrent test runs
 * never see a half-written binary, and another version is never picked up.
 */
async function unpackedChromium(): Promise<string> {
  const require = createRequire(import.meta.url);
  const packageDir = path.resolve(path.dirname(require.resolve('@sparticuz/chromium')), '..', '..');
  const { version } = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const dir = path.join(os.tmpdir(), `citetrace-chromium-${version}`);
  const complete = (folder: string): boolean => existsSync(path.join(folder, UNPACKED));
  if (complete(dir)) return dir;

  const staging = await mkdtemp(path.join(os.tmpdir(), 'citetrace-chromium-staging-'));
  try {
    await unpackInto(staging, packageDir, dir, version);
    try {
      await rename(staging, dir);
    } catch {
      // Another run unpacked the same version first: use that one. A folder without the marker is an older layout: replace it.
      if (!complete(dir)) {
        await rm(dir, { recursive: true, force: true });
        await rename(staging, dir);
      }
    }
  } finally {
    // Gone after a rename; otherwise a failed or redundant unpack.
    await rm(staging, { recursive: true, force: true });
  }
  return dir;
}

/** Unpack the browser, its libraries and its fonts into `staging`, which is then renamed to `dir`. */
async function unpackInto(staging: string, packageDir: string, dir: string, version: string): Promise<void> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  try {
    await Chromium.executablePath();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
  // The package unpacks its libraries (built for Amazon Linux 2023, glibc 2.34) only on Lambda; they serve any glibc >= 2.34.
  await untarBrotli(path.join(packageDir, 'bin', 'al2023.tar.br'), path.join(staging, 'al2023'));
  // The bundled fonts.conf names /tmp/fonts; point fontconfig at this copy's fonts, and nothing of the system's.
  const fonts = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${path.join(dir, 'fonts')}</dir>\n  <cachedir>${path.join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`;
  await writeFile(path.join(staging, FONTS_CONF), fonts);
  await writeFile(path.join(staging, UNPACKED), `${version}\n`);
}

/** Unpack a brotli-compressed tar file with the system's tar (Node has no tar reader). */
async function untarBrotli(file: string, into: string): Promise<void> {
  await mkdir(into, { recursive: true });
  // Through a file, not a pipe: tar may exit at the end-of-archive blocks before the padding after them is written.
  const tarFile = path.join(into, '.unpacking.tar');
  await pipeline(createReadStream(file), createBrotliDecompress(), createWriteStream(tarFile));
  await promisify(execFile)('tar', ['-x', '-f', tarFile, '-C', into]);
  await rm(tarFile);
}
