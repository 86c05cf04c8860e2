import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { queueState } from '../backfill/queue-keys.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTestEnvironment } from '../harness/test-environment.js';

// Run ids, numeric flags and settings are checked before anything is touched: a typo is exit 2
// with the allowed values, never "unexpected error … out of range for type integer".

const env = useTestEnvironment();
let app: App;

beforeAll(() => {
  app = createApp(env.config());
});
afterAll(async () => {
  await app.close();
});

const base = (extra: Record<string, string> = {}) =>
  env.cliEnv({ ENVDATA_API_KEY: 'envdata-demo-key', LOG_LEVEL: 'silent', ...extra });

/** Every row of the ledger and the locations, and every queue key: what "nothing written" means. */
async function state(): Promise<unknown> {
  const { rows } = await sql<{ runs: number; chunks: number; locations: number }>`
    select (select count(*)::int from envdata.run) as runs,
      (select count(*)::int from envdata.chunk) as chunks,
      (select count(*)::int from envdata.location) as locations`.execute(app.db);
  return { ...rows[0], keys: await queueState(env) };
}

async function refused(args: string[], message: RegExp, extra?: Record<string, string>) {
  const before = await state();
  // In this process: the binary's parsing and exit codes, without its start-up per case.
  const result = await runCliInProcess(args, base(extra));
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(/unexpected error|out of range for type|\n\s+at /);
  expect(await state()).toEqual(before);
}

describe('run ids are whole numbers within the integer range', () => {
  it.each([
    [['retry', '99999999999999999999'], '99999999999999999999'],
    [['retry', '2147483648'], '2147483648'],
    [['retry', '0'], '0'],
    [['retry', '0x10'], '0x10'],
    [['resume', '99999999999999999999'], '99999999999999999999'],
    [['status', '99999999999999999999'], '99999999999999999999'],
    [['status', ' 12'], ' 12'],
  ])('%j exits 2 with the allowed range', async (args, shown) => {
    await refused(
      args,
      new RegExp(
        `RUN must be a run id such as 12: a whole number from 1 to 2147483647 \\(got "${shown}"\\)`,
      ),
    );
  });

  it('a run id in range that does not exist is still a clear exit 2', async () => {
    await refused(['retry', '2147483647'], /there is no run 2147483647/);
    // `status` opens the queues to count them (BullMQ writes their meta keys): check the answer.
    const status = await runEnvdata(['status', '2147483647'], base());
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/there is no run 2147483647/);
  });
});

describe('numeric flags are plain decimals', () => {
  it.each([
    [
      ['worker', '--concurrency', '0x10'],
      /--concurrency must be a whole number from 1 to 1000 \(got "0x10"\)/,
    ],
    [['worker', '--concurrency', '1e1'], /--concurrency must be a whole number from 1 to 1000/],
    [
      ['demo', '--weather-years', '0'],
      /--weather-years must be a whole number from 1 to 30 \(got "0"\)/,
    ],
    [
      ['simulate', '--port', '0x50'],
      /--port must be a port number: a whole number from 0 to 65535 \(got "0x50"\)/,
    ],
    [
      [
        'backfill',
        ...['--dataset', 'weather', '--from', '2024-01-01', '--to', '2024-01-03'],
        '--window',
        ' 48h',
      ],
      /--window must be whole hours/,
    ],
  ])('%j exits 2', async (args, message) => {
    await refused(args, message);
  });
});

describe('settings are checked at start with their allowed range', () => {
  it('ENVDATA_JOB_LOCK_MS=10 exits 2 naming the range', async () => {
    await refused(
      ['status'],
      /ENVDATA_JOB_LOCK_MS \(got "10"\): must be a whole number in 2000–600000 ms \(2 s to 10 min\)/,
      { ENVDATA_JOB_LOCK_MS: '10' },
    );
  });

  it('ENVDATA_SYNC_CRON="61 2 * * *" stops the scheduler before it starts, with the parser\'s reason', async () => {
    await refused(
      ['scheduler'],
      /ENVDATA_SYNC_CRON \(got "61 2 \* \* \*"\): must be a cron pattern .*got value 61 expected range 0-59/,
      { ENVDATA_SYNC_CRON: '61 2 * * *' },
    );
  });
});
