/**
 * A trace writer for crash tests: appends sample traces to the store named by its argument
 * (a SQLite file or a postgres:// URL) as fast as it can, printing each trace id only after its
 * append has resolved, i.e. after the commit. A parent kills it with SIGKILL at random.
 */
import { createPostgresTraceStore, createSqliteTraceStore } from '../src/trace/index.js';
import { sampleTrace } from './sample-trace.js';

const target = process.argv[2] ?? '';
const schema = process.argv[3];
const store = target.startsWith('postgres')
  ? await createPostgresTraceStore({ url: target, ...(schema ? { schema } : {}) })
  : createSqliteTraceStore({ file: target });

for (;;) {
  const trace = sampleTrace();
  await store.append(trace);
  process.stdout.write(`${trace.trace_id}\n`);
}
