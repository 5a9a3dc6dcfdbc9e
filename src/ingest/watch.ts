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
  /** How long a file's size must stay unchanged before it is read (a file still being written waits); default 250 ms. */
  readonly settleMs?: number;
  readonly clock: () => Date;
}

/**
 * Ingest, then re-ingest the whole repository whenever a policy file or assistant.yaml settles
 * after a change. Files are taken only once their size has stopped changing (half-written files
 * wait); editor swap and backup files are ignored. A removed file withdraws its source at the
 * next commit; its revisions stay in the index. A file that will not be read is reported through
 * onSkip as it appears; a refused one (malformed, over the size limit) through onError, and the
 * index stays at its last commit. The same refusal is said once: a repeat (two events for one
 * write, an edit that leaves the same problem) is not reported again until the refusal changes
 * or an ingest succeeds. onIngest is called after the commit is on disk, for every ingest in
 * the order they ran; a change made during an ingest is picked up by the next one.
 * close() interrupts a running ingest, which is then undone.
 */
export function watchRepository(options: WatchOptions): Watcher {
  const debounceMs = options.debounceMs ?? 200;
  const settleMs = options.settleMs ?? 250;
  let lastRefusal: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([stop.signal, options.signal]);

  const run = (): Promise<void> => {
    running = running.then(async () => {
      if (closed) return;
      let report: IngestReport;
      try {
        report = await ingestRepository({ ...options, signal, now: options.clock() });
      } catch (error) {
        if (signal.aborted) return;
        const refusal = error instanceof Error ? error.message : String(error);
        if (refusal !== lastRefusal) options.onError(error);
        lastRefusal = refusal;
        return;
      }
      lastRefusal = undefined;
      try {
        options.onIngest(report);
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
    awaitWriteFinish: { stabilityThreshold: settleMs, pollInterval: Math.min(50, settleMs) },
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
    lastRefusal = undefined;
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
