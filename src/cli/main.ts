import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

// A reader that stops early (`envdata --help | head -5`) closes the pipe: what is left to write
// has nowhere to go. Drop it, as a Unix tool killed by SIGPIPE would, instead of crashing on an
// unhandled EPIPE; the command's own exit code stands. Any other stream error is a bug.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const code = await runCli(process.argv.slice(2), processIo());
// Long-running commands return only after closing everything; exit now with their code. A pipe
// is written asynchronously: what is still queued for it would be lost at exit, so let it drain.
const drained = (stream: NodeJS.WriteStream) =>
  new Promise<void>((resolve) => {
    if (stream.destroyed || !stream.writable) resolve();
    else stream.write('', () => resolve());
  });
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
