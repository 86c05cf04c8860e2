import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import type { EnvdataResult } from './run-envdata.js';

/**
 * `envdata ARGS…` in this process: the same parsing, validation and exit code as `bin/envdata.js`
 * (which exits with what `runCli` returns), without a process start per case: a spawned `envdata
 * status` takes about 0.5 s (`npm run bench:cli`), a call in this warm process a few milliseconds.
 * `stdoutIsTty` makes standard output claim to be a terminal (colours); the text is still kept.
 */
export async function runCliInProcess(
  args: readonly string[],
  vars: Record<string, string>,
  options: { stdoutIsTty?: boolean } = {},
): Promise<EnvdataResult> {
  const capture = (isTTY = false) => {
    let text = '';
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        text += chunk.toString('utf8');
        callback();
      },
    });
    return { stream: Object.assign(stream, { isTTY }), text: () => text };
  };
  const stdout = capture(options.stdoutIsTty);
  const stderr = capture();
  const code = await runCli(args, { env: vars, stdout: stdout.stream, stderr: stderr.stream });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
