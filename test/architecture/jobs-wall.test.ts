import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The wall around jobs/ (eslint.config.js): the queue's contract imports zod, BullMQ's types,
 * src/types.ts and its own files, and nothing of the producers or the workers that import it.
 * Each snippet is linted as if it were a file of jobs/.
 */
const eslint = new ESLint({ cwd: process.cwd() });
const FILE = 'jobs/probe.ts';

async function rulesBroken(code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: FILE });
  return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
}

describe('the wall around jobs/', () => {
  it.each([
    ['a part of src/', "import { claimChunk } from '../src/ledger/claim-chunk.js';"],
    [
      'a type of src/ other than the vocabulary',
      "import type { Config } from '../src/config/config.js';",
    ],
    ['the worker', "import { IngestWorker } from '../src/worker/ingest-worker.js';"],
    ['a test', "import { pollUntil } from '../test/harness/poll-until.js';"],
    ['another package', "import { sql } from 'kysely';"],
    ['a Node.js module', "import { randomUUID } from 'node:crypto';"],
  ])('refuses %s', async (_what, line) => {
    expect(await rulesBroken(`${line}\nexport const x = 1;\n`)).toContain('no-restricted-imports');
  });

  it('refuses a value of bullmq: the worker throws its errors', async () => {
    const code =
      "import { UnrecoverableError } from 'bullmq';\nexport const E = UnrecoverableError;\n";
    expect(await rulesBroken(code)).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('lets it import zod, the types of bullmq, src/types.ts and its own files', async () => {
    const code = [
      "import type { JobsOptions } from 'bullmq';",
      "import { z } from 'zod';",
      "import { DATASETS } from '../src/types.js';",
      "import { QUEUE_NAMES } from './queue-names.js';",
      'export const s = z.enum(DATASETS);',
      'export const o: JobsOptions = {};',
      'export const q = QUEUE_NAMES;',
      '',
    ].join('\n');
    expect(await rulesBroken(code)).toEqual([]);
  });
});
