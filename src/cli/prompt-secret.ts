import { usageError } from './usage-error.js';

/**
 * Asks for a secret on a terminal without echoing it: the terminal is put in raw mode before the
 * question is written and while the answer is typed (Backspace edits, Enter ends, Ctrl-C cancels
 * with exit 2), and restored after.
 */
export function promptSecret(
  input: NodeJS.ReadStream,
  output: NodeJS.WritableStream,
  question: string,
): Promise<string> {
  // Echo off before the question shows: an answer typed the moment it appears is never echoed.
  input.setRawMode(true);
  output.write(question);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish();
          resolve(text);
          return;
        }
        if (ch === '\u0003' || ch === '\u0004') {
          finish();
          reject(usageError('cancelled: no password was given, nothing was changed'));
          return;
        }
        if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
        else text += ch;
      }
    };
    input.on('data', onData);
  });
}
