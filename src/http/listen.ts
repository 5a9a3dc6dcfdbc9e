import { createServer } from 'node:net';
import { CitetraceError } from '../domain/index.js';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

const REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is already in use (choose another with --port or PORT)',
  EACCES: 'permission denied (ports below 1024 need privileges; choose another with --port or PORT)',
  EADDRNOTAVAIL: 'the address is not available on this machine (choose another with --host or HOST)',
  ENOTFOUND: 'the host name does not resolve (choose another with --host or HOST)',
};

/** A failure to bind, as one line naming host and port; anything else passes through unchanged. */
export function listenFailure(error: unknown, at: ListenAddress): unknown {
  const code = (error as { code?: unknown }).code;
  const reason = typeof code === 'string' ? REASONS[code] : undefined;
  if (reason === undefined) return error;
  const host = at.host.includes(':') ? `[${at.host}]` : at.host;
  return new CitetraceError('BAD_INPUT', `cannot listen on ${host}:${at.port}: ${reason}`, { cause: error });
}

/**
 * Bind and release the address at once, so a command that would serve on a busy port says so
 * before minutes of set-up. Port 0 is always free. The real listen still reports a lost race.
 */
export async function assertCanListen(at: ListenAddress): Promise<void> {
  if (at.port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host: at.host, port: at.port, exclusive: true }, resolve);
    });
  } catch (error) {
    throw listenFailure(error, at);
  } finally {
    if (probe.listening) await new Promise((resolve) => probe.close(resolve));
  }
}
