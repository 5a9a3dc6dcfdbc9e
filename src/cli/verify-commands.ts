import type { KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../config/index.js';
import { CitetraceError, TraceIdSchema } from '../domain/index.js';
import type { IndexReport, VerifyReport } from '../eval/index.js';
import type { IndexAt, PolicyIndex } from '../index-store/index.js';
import type { Checkpoint } from '../trace/index.js';
import type { AuditIo } from './audit-commands.js';

// Loaded by the command that runs, not at start-up (see program.ts).
const evaluation = () => import('../eval/index.js');
const main = () => import('../main.js');
const indexStore = () => import('../index-store/index.js');
const traceModule = () => import('../trace/index.js');

interface VerifyOptions {
  all?: boolean;
  index?: boolean;
  json?: boolean;
  publicKey?: string;
  against?: string;
}

/**
 * The traces part of `verify`: the store read-only, the signed checkpoints (with --public-key)
 * and kept heads (--against) as anchors the chain walk must reach. Nothing is written.
 */
async function verifyStore(config: Config, index: PolicyIndex, location: IndexAt, id: string | undefined, opts: VerifyOptions): Promise<VerifyReport> {
  const [{ checkpointEvidence, keptHeads, readPublicKey, verifyTraces }, { createTraceStore }, { readCheckpoints }] = await Promise.all([evaluation(), main(), traceModule()]);
  const publicKey = opts.publicKey === undefined ? null : await readPublicKey(opts.publicKey);
  const kept = opts.against === undefined ? null : await keptHeads(opts.against, publicKey);
  const gone = await missingStore(config, publicKey);
  if (gone !== null) return { checked: 0, purged: 0, failed: [], firstBrokenLink: null, store: [gone] };
  const store = await createTraceStore(config, { readonly: true });
  try {
    const signed = publicKey === null ? null : await checkpointEvidence({ lines: await readCheckpoints(config.checkpoints), file: config.checkpoints, publicKey, store, dataDir: location });
    const report = await verifyTraces({ store, index, dataDir: location, traceId: id, anchors: [...(signed?.anchors ?? []), ...(kept?.anchors ?? [])] });
    return { ...report, store: [...report.store, ...(signed?.findings ?? []), ...(kept?.findings ?? [])] };
  } finally {
    await store.close();
  }
}

/**
 * A SQLite store that is gone, while the checkpoint file shows it held traces (with a public key,
 * only validly signed checkpoints count): a finding, not bad input. Null when the store is there,
 * or nothing shows it ever held a trace (then opening it says what is wrong, exit 2).
 */
async function missingStore(config: Config, publicKey: KeyObject | null): Promise<string | null> {
  const [{ isPostgresUrl }, { checkpointSignatureValid, readCheckpoints }] = await Promise.all([main(), traceModule()]);
  if (isPostgresUrl(config.traces) || existsSync(config.traces)) return null;
  const shown = (await readCheckpoints(config.checkpoints))
    .flatMap((l) => ('checkpoint' in l && (publicKey === null || checkpointSignatureValid(l.checkpoint, publicKey)) ? [{ line: l.line, c: l.checkpoint }] : []))
    .reduce<{ line: number; c: Checkpoint } | null>((most, l) => (l.c.seq > (most?.c.seq ?? 0) ? l : most), null);
  return shown === null ? null : `no trace store at ${config.traces}, but checkpoint line ${shown.line} (#${shown.c.seq}, ${shown.c.at}) shows ${shown.c.seq} trace(s) (the store was deleted or moved)`;
}

function printText(io: AuditIo, traces: VerifyReport | null, index: IndexReport | null): void {
  if (traces !== null) {
    for (const f of traces.store) io.out(`FAIL store: ${f}\n`);
    for (const f of traces.failed) for (const p of f.problems) io.out(`FAIL ${f.traceId} (#${f.seq}): ${p}\n`);
    if (traces.firstBrokenLink !== null) io.out(`first broken link: trace ${traces.firstBrokenLink.traceId} (#${traces.firstBrokenLink.seq})\n`);
    io.out(
      `verified ${traces.checked} trace(s): ${traces.checked - traces.failed.length} ok, ${traces.failed.length} failed; ${traces.purged} purged (links checked, payload removed); ${traces.store.length} store finding(s)\n`,
    );
  }
  if (index !== null) {
    for (const f of index.findings) io.out(`FAIL index: ${f}\n`);
    io.out(`verified index: ${index.revisions} revision(s), ${index.passages} passage(s); ${index.findings.length} finding(s)\n`);
  }
}

export function registerVerifyCommands(program: Command, io: AuditIo): void {
  program
    .command('verify')
    .description('re-check stored traces end to end (store schema, hash chain, purges, signed checkpoints, passage text, citations, labels, in force) and, with --index, the index; exit 1 listing every finding')
    .argument('[id]', 'one trace id')
    .option('--all', 'every trace, in chain order')
    .option('--index', 'the index: every revision hashes to its id, every passage matches its revision, metadata matches the hashed front matter, files match their commit digests')
    .option('--public-key <file>', 'check the signed checkpoints (CITETRACE_CHECKPOINTS) with this Ed25519 public key (PEM); implies --all')
    .option('--against <head>', 'prove nothing at or before a kept head changed: "SEQ sha256:HEX" as `chain head` prints it, or a file of such heads or checkpoints; implies --all')
    .option('--json', 'print the report as JSON')
    .action(async (id: string | undefined, opts: VerifyOptions) => {
      const chain = opts.all === true || opts.publicKey !== undefined || opts.against !== undefined;
      if (id !== undefined && chain) throw new CitetraceError('BAD_INPUT', 'give a trace id or --all (which --public-key and --against imply), not both');
      if (id === undefined && !chain && opts.index !== true) throw new CitetraceError('BAD_INPUT', 'give a trace id, --all or --index');
      // A well-formed id the store lacks is a finding (the trace may have been removed); one that is not a trace id is a typo.
      if (id !== undefined && !TraceIdSchema.safeParse(id).success) throw new CitetraceError('BAD_INPUT', `${id} is not a trace id (a UUID)`);
      const config = io.config();
      const [{ findingsOf, verifyIndex }, { changedIndexFiles, readManifest }, { indexLocationOf, openReadableIndex }] = await Promise.all([evaluation(), indexStore(), main()]);
      // Index files first, by their committed sha256 and without LanceDB: a changed data file can make LanceDB's
      // reader panic (a Rust backtrace on stderr) instead of failing, so a changed file is named and the index not opened.
      // An index on object storage is checked there, where it is kept, not in a reader's copy.
      const location = indexLocationOf(config);
      const manifest = await readManifest(location).catch(() => null);
      const changed = manifest?.files === undefined ? [] : await changedIndexFiles(location, manifest.files);
      if (changed.length > 0) {
        const findings = [...changed, 'the index was not opened, so no trace was checked against it: restore the data folder from a backup or re-ingest into a new one'];
        const indexReport: IndexReport = { revisions: 0, passages: 0, findings };
        if (opts.json === true) io.out(`${JSON.stringify({ ok: false, findings, traces: null, index: indexReport }, null, 2)}\n`);
        else printText(io, null, indexReport);
        throw new CitetraceError('VERIFY_FAILED', `verification failed: ${findings.length} finding(s)`);
      }
      const index = await openReadableIndex(config, 'off');
      try {
        const traces = id === undefined && !chain ? null : await verifyStore(config, index, location, id, opts);
        const indexReport = opts.index === true ? await verifyIndex({ index, dataDir: location }) : null;
        const findings = [...(traces === null ? [] : findingsOf(traces)), ...(indexReport?.findings ?? [])];
        if (opts.json === true) io.out(`${JSON.stringify({ ok: findings.length === 0, findings, traces, index: indexReport }, null, 2)}\n`);
        else printText(io, traces, indexReport);
        if (findings.length > 0) throw new CitetraceError('VERIFY_FAILED', `verification failed: ${findings.length} finding(s)`);
      } finally {
        index.close();
      }
    });

  program
    .command('checkpoint')
    .description('sign the chain head now with the checkpoint key (CITETRACE_SIGNING_KEY_FILE), append it to the checkpoint file and print it, to keep outside the host')
    .action(async () => {
      const config = io.config();
      const [{ checkpointingOf, createTraceStore, loadSigningKey }, { writeCheckpoint }] = await Promise.all([main(), traceModule()]);
      const key = await loadSigningKey(config);
      if (key === null) throw new CitetraceError('BAD_INPUT', 'no signing key: set CITETRACE_SIGNING_KEY_FILE (or CITETRACE_SIGNING_KEY)');
      // Read-only: the store itself is not changed, and closing it writes no second checkpoint.
      const store = await createTraceStore(config, { readonly: true });
      try {
        io.out(`${JSON.stringify(await writeCheckpoint(store, checkpointingOf(config, key)))}\n`);
      } finally {
        await store.close();
      }
    });
}
