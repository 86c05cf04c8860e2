import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), processIo());
// Long-running commands return only after closing everything; exit now with their code. A pipe
// is written asynchronously: what is still queued for it would be lost at exit, so let it drain.
const drained = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
