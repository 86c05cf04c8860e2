import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
const vars = (extra: Record<string, string> = {}) =>
  env.cliEnv({
    ENVDATA_API_KEY: 'envdata-demo-key',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
    ...extra,
  });
const RANGE = ['--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-04'];

describe('envdata points to --help after usage errors only', () => {
  it.each([
    [['backfill', ...RANGE, '--dataset', 'humidity'], 'envdata backfill'],
    [['backfill', ...RANGE, '--bogus'], 'envdata backfill'],
    [
      ['locations', 'add', '--lat', '1', '--lng', '1', '--ingest-by-place'],
      'envdata locations add',
    ],
    [['frobnicate'], 'envdata'],
  ])('%j: exit 2, and the help of the command that was run', async (args, command) => {
    const result = await runCliInProcess(args, vars());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`\\(run \`${command} --help\` for usage\\)\\n$`));
  });

  it.each([
    [['status', '99'], 'envdata: there is no run 99: see `envdata status`\n'],
    [['retry', '99'], 'envdata: there is no run 99: see `envdata status`\n'],
    [['resume', '99'], 'envdata: run 99 is not running, paused or stopped: see `envdata status`\n'],
    [
      ['backfill', ...RANGE, '--dry-run'],
      'envdata: no locations are registered: `envdata locations add --lat … --lng …` first\n',
    ],
  ])('%j: exit 2 with what to do, and no --help', async (args, stderr) => {
    const result = await runCliInProcess(args, vars());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(stderr);
  });

  it('a missing API key is configuration to set: exit 2, no --help', async () => {
    const result = await runCliInProcess(['backfill', ...RANGE], vars({ ENVDATA_API_KEY: '' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^envdata: ENVDATA_API_KEY is not set: .*\)\n$/);
  });
});
