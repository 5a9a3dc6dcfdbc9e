/**
 * A trace writer for crash tests: appends sample traces to the store named by its argument
 * (a SQLite file or a postgres:// URL) as fast as it can, printing each trace id only after its
 * append has resolved, i.e. after the commit. With a signing key file and a checkpoint file it
 * signs a checkpoint after every `every`-th trace, as the service does. A parent kills it with
 * SIGKILL at random.
 * Arguments: TARGET [SCHEMA] [KEY_FILE CHECKPOINT_FILE EVERY]
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createPostgresTraceStore, createSqliteTraceStore, withCheckpoints } from '../src/trace/index.js';
import { sampleTrace } from './sample-trace.js';

const [target = '', schema, keyFile, checkpointFile, every] = process.argv.slice(2);
const opened = target.startsWith('postgres')
  ? await createPostgresTraceStore({ url: target, ...(schema ? { schema } : {}) })
  : createSqliteTraceStore({ file: target });
const store =
  keyFile && checkpointFile
    ? withCheckpoints(opened, { privateKey: createPrivateKey(readFileSync(keyFile)), file: checkpointFile, every: Number(every ?? 25), indexDigest: () => Promise.resolve(null), clock: () => new Date() })
    : opened;

for (;;) {
  const trace = sampleTrace();
  await store.append(trace);
  process.stdout.write(`${trace.trace_id}\n`);
}
