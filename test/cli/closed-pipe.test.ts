import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ENVDATA_BIN } from '../harness/run-envdata.js';
import { childEnvironment } from '../harness/child-environment.js';

/**
 * `envdata --help | head -1`: the reader closes the pipe after its first line. What envdata still
 * has to write goes nowhere; it must end with its own exit code and no stack trace.
 */
async function runWithReaderThatLeaves(
  args: readonly string[],
): Promise<{ code: number | null; stderr: string; firstChunk: string }> {
  const child = spawn(process.execPath, [ENVDATA_BIN, ...args], {
    env: childEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const firstChunk = await new Promise<string>((resolve) => {
    child.stdout.once('data', (chunk: Buffer) => {
      // As `head` does: read once, then close our end while envdata may still be writing.
      child.stdout.destroy();
      resolve(chunk.toString('utf8'));
    });
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr, firstChunk };
}

describe('a reader that closes the pipe early', () => {
  it.each([
    ['--help', ['--help']],
    ['completion bash', ['completion', 'bash']],
  ] as const)('`envdata %s | head -1` exits 0 without a word on stderr', async (_name, args) => {
    const { code, stderr, firstChunk } = await runWithReaderThatLeaves(args);
    expect(firstChunk.length).toBeGreaterThan(0);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
