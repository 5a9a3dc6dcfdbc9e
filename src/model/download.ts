import { createHash } from 'node:crypto';
import path from 'node:path';

/** Hex digest of bytes: how a downloaded artifact is checked against its pinned hash. */
export function digestOf(algorithm: 'sha1' | 'sha256', bytes: Uint8Array): string {
  return createHash(algorithm).update(bytes).digest('hex');
}

export interface DownloadOptions {
  readonly onProgress?: (message: string) => void;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

/** Fetch a model artifact into memory, reporting every tenth of it when the size is known. */
export async function download(url: string, options: DownloadOptions = {}): Promise<Uint8Array> {
  const doFetch = options.fetch ?? fetch;
  const response = await doFetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 120_000) });
  if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status} for ${url}`);
  const total = Number(response.headers.get('content-length') ?? 0);
  const chunks: Uint8Array[] = [];
  let received = 0;
  let lastReported = -1;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    received += chunk.length;
    const pct = total > 0 ? Math.floor((received / total) * 10) * 10 : -1;
    if (pct !== lastReported && pct >= 0) {
      lastReported = pct;
      options.onProgress?.(`downloading ${path.basename(url)}: ${pct}% of ${(total / 1e6).toFixed(1)} MB`);
    }
  }
  return Buffer.concat(chunks);
}
