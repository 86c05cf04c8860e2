import type { CommandContext } from '../command-context.js';

/**
 * Prints one `--json` document on standard output, newline-terminated: with `--json` nothing
 * else goes there (logs and warnings go to standard error). `document` is typed by the
 * command's schema (`z.infer`), so the compiler checks what is printed against it.
 */
export function printJsonDocument(context: CommandContext, document: object): void {
  context.io.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}
