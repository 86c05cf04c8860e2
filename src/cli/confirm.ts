import { createInterface } from 'node:readline/promises';

/** Asks a yes/no question on the terminal; only "y" or "yes" is a yes. */
export async function confirm(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  question: string,
): Promise<boolean> {
  const rl = createInterface({ input, output });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
