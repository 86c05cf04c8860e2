import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { BERLIN } from '../fixtures/places.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
let app: App;
const base = (extra: Record<string, string> = {}) =>
  env.cliEnv({
    // Nothing may be called: the service is never reached when a check fails first.
    ENVDATA_BASE_URL: 'http://127.0.0.1:1',
    ENVDATA_API_KEY: DEMO_API_KEY,
    LOG_FORMAT: 'json',
    ...extra,
  });

beforeAll(async () => {
  app = createApp(env.config());
  await addPointLocation(app.db, BERLIN);
});
afterAll(async () => {
  await app.close();
});

const COMMANDS: readonly (readonly string[])[] = [
  ['backfill', '--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-06'],
  ['backfill', '--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-06', '--wait'],
  ['sync', '--now'],
  ['sync', '--now', '--wait'],
  ['resume'],
  ['retry', '1'],
  ['worker'],
  ['scheduler'],
];

async function runs(): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from envdata.run`.execute(
    app.db,
  );
  return rows[0]!.n;
}

/** One line, exit 1, nothing written: what every command does when a service is down at start. */
async function expectRefused(args: readonly string[], extra: Record<string, string>, line: RegExp) {
  const before = await runs();
  const result = await runEnvdata(args, base(extra));
  expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, args.join(' ')).toHaveLength(1);
  expect(lines[0]).toMatch(line);
  expect(result.stderr).not.toMatch(/please report it/);
  expect(await runs()).toBe(before);
}

const CASES = COMMANDS.map((args) => [args.join(' '), args] as const);

describe('every command that dispatches work checks Postgres and Redis before it writes anything', () => {
  it.each(CASES)(
    'with the queue on Redis and Redis down, `envdata %s` says so in one line and exits 1',
    async (_, args) => {
      await expectRefused(
        args,
        // Named, not left to the file's backend: where no Redis answers, a core file keeps its
        // queue in Postgres, which needs no Redis at all.
        { ENVDATA_QUEUE_BACKEND: 'redis', REDIS_URL: 'redis://127.0.0.1:1' },
        /^envdata: REDIS_URL redis:\/\/127\.0\.0\.1:1 does not answer: start Redis .* or set REDIS_URL$/,
      );
    },
  );

  it.each(CASES)(
    'with Postgres down, `envdata %s` says so in one line and exits 1',
    async (_, args) => {
      await expectRefused(
        args,
        { DATABASE_URL: 'postgres://envdata:s3cret@127.0.0.1:1/envdata' },
        /^envdata: DATABASE_URL postgres:\/\/envdata:\*\*\*@127\.0\.0\.1:1\/envdata does not answer: start Postgres/,
      );
    },
  );
});
