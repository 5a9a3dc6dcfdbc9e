import { runCli } from './program.js';

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  isTty: process.stderr.isTTY,
});
process.exitCode = code;
