import path from 'node:path';
import { watch as chokidarWatch } from 'chokidar';
import { ingestRepository, type IngestOptions, type IngestReport } from './ingest.js';
import { isPolicyFileName } from './repository.js';

export interface Watcher {
  /** Resolves after the initial ingest and once chokidar is watching. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions extends IngestOptions {
  readonly onIngest: (report: IngestReport) => void;
  readonly onError: (error: unknown) => void;
  /** Quiet time after the last change before re-ingesting. */
  readonly debounceMs?: number;
  readonly clock: () => Date;
}

/**
 * Ingest, then re-ingest the whole repository whenever a policy file or assistant.yaml settles
 * after a change. Files are taken only once their size has stopped changing (half-written files
 * wait); editor swap and backup files are ignored. A removed file withdraws its source at the
 * next commit; its revisions stay in the index.
 */
export function watchRepository(options: WatchOptions): Watcher {
  const debounceMs = options.debounceMs ?? 200;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;

  const run = (): Promise<void> => {
    running = running.then(async () => {
      if (closed) return;
      try {
        options.onIngest(await ingestRepository({ ...options, now: options.clock() }));
      } catch (error) {
        options.onError(error);
      }
    });
    return running;
  };
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), debounceMs);
  };
  const relevant = (file: string): boolean => {
    const name = path.basename(file);
    return isPolicyFileName(name) || (name === 'assistant.yaml' && path.dirname(path.resolve(file)) === path.resolve(options.root));
  };

  const watcher = chokidarWatch(options.root, {
    ignoreInitial: true,
    ignored: (file, stats) => {
      const name = path.basename(file);
      if (name.startsWith('.') && path.resolve(file) !== path.resolve(options.root)) return true;
      return stats?.isFile() === true && !relevant(file);
    },
    awaitWriteFinish: { stabilityThreshold: 250, pollInterval: 50 },
  });
  for (const event of ['add', 'change', 'unlink'] as const) {
    watcher.on(event, (file: string) => {
      if (relevant(file)) schedule();
    });
  }
  watcher.on('unlinkDir', schedule);
  watcher.on('error', (error) => {
    options.onError(error);
  });

  const watching = new Promise<void>((resolve) => {
    watcher.once('ready', () => {
      resolve();
    });
  });
  const ready = Promise.all([run(), watching]).then(() => undefined);
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}
