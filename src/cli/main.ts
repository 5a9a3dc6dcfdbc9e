import { runCli } from './program.js';

// LanceDB logs its own warnings to stderr (Rust env_logger, read when it loads); a damaged index
// is reported by the command in one line instead. LANCEDB_LOG=warn brings them back.
process.env.LANCEDB_LOG ??= 'error';

// A reader that stops early (`citetrace traces list | head`) closes the pipe: that ends the output, quietly, as
// other command-line tools do, instead of an unhandled 'error' event and its stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  isTty: process.stderr.isTTY,
});
process.exitCode = code;
