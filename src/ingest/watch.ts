import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { watch as chokidarWatch } from 'chokidar';
import { ingestRepository, type IngestOptions, type IngestReport } from './ingest.js';
import { isPolicyFileName, skipReasonOf, type SkippedEntry } from './repository.js';

export interface Watcher {
  /** Resolves after the initial ingest and once chokidar is watching. */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions extends IngestOptions {
  readonly onIngest: (report: IngestReport) => void;
  readonly onError: (error: unknown) => void;
  /** A file added or changed after the start that is not read (symbolic link, FIFO, not Markdown, ...): said once per event. */
  readonly onSkip?: (entry: SkippedEntry) => void;
  /** Quiet time after the last change before re-ingesting. */
  readonly debounceMs?: number;
  readonly clock: () => Date;
}

/**
 * Ingest, then re-ingest the whole repository whenever a policy file or assistant.yaml settles
 * after a change. Files are taken only once their size has stopped changing (half-written files
 * wait); editor swap and backup files are ignored. A removed file withdraws its source at the
 * next commit; its revisions stay in the index. A file that will not be read is reported through
 * onSkip as it appears; a refused one (malformed, over the size limit) through onError, and the
 * index stays at its last commit. close() interrupts a running ingest, which is then undone.
 */
export function watchRepository(options: WatchOptions): Watcher {
  const debounceMs = options.debounceMs ?? 200;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([stop.signal, options.signal]);

  const run = (): Promise<void> => {
    running = running.then(async () => {
      if (closed) return;
      try {
        options.onIngest(await ingestRepository({ ...options, signal, now: options.clock() }));
      } catch (error) {
        if (!signal.aborted) options.onError(error);
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

  // Said once per path until it changes kind, so an editor rewriting a file does not repeat it.
  const said = new Map<string, string>();
  const check = async (file: string): Promise<void> => {
    const stats = await lstat(file).catch(() => undefined);
    if (stats === undefined) return;
    const reason = skipReasonOf({ name: path.basename(file), isFile: () => stats.isFile(), isDirectory: () => stats.isDirectory(), isSymbolicLink: () => stats.isSymbolicLink() }, path.dirname(path.resolve(file)) === path.resolve(options.root));
    if (reason === null) {
      said.delete(file);
      if (relevant(file)) schedule();
    } else if (said.get(file) !== reason) {
      said.set(file, reason);
      options.onSkip?.({ file, reason });
    }
  };

  const watcher = chokidarWatch(options.root, {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (file) => {
      const name = path.basename(file);
      return (name.startsWith('.') || name === 'node_modules') && path.resolve(file) !== path.resolve(options.root);
    },
    awaitWriteFinish: { stabilityThreshold: 250, pollInterval: 50 },
  });
  for (const event of ['add', 'change'] as const) {
    watcher.on(event, (file: string) => {
      void check(file);
    });
  }
  watcher.on('unlink', (file: string) => {
    said.delete(file);
    if (relevant(file)) schedule();
  });
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
      stop.abort(new Error('watch closed'));
      clearTimeout(timer);
      await watcher.close();
      await running;
    },
  };
}
