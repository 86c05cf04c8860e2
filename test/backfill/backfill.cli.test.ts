import { describe, expect, it } from 'vitest';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { countRows } from '../harness/count-rows.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { queueState } from './queue-keys.js';

const fx = useBackfillFixture();
// 2024-06-02 is on the 48-hour grid: 2 datasets × 2 locations × 5 windows = 20 chunks.
const RANGE = ['--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-12'];

function env(extra: Record<string, string> = {}): Record<string, string> {
  return fx.cliEnv(extra);
}

const runInProcess = runCliInProcess;

/** What RANGE costs, as the planner counts it (a dry run: nothing written). */
async function plannedEstimate() {
  const { estimate } = await fx.planBackfill(backfillRange('2024-06-02', '2024-06-12'), {
    dryRun: true,
  });
  return estimate;
}

/** Rows in the ledger's run, gap and chunk tables together. */
async function ledgerRows(): Promise<number> {
  let n = 0;
  for (const table of ['run', 'run_gap', 'chunk'] as const) n += await countRows(fx.app.db, table);
  return n;
}

describe('envdata backfill refuses bad input with exit 2', () => {
  it.each([
    ['an impossible date', ['--from', '2024-02-30'], /--from "2024-02-30" is not a real date/],
    ['reversed dates', ['--from', '2024-06-12', '--to', '2024-06-02'], /must be before --to/],
    ['an unknown dataset', ['--dataset', 'humidity'], /--dataset must be pollen, weather or all/],
    ['an unknown location', ['--location', 'Atlantis'], /unknown location\(s\): "Atlantis"/],
    ['a zero window', ['--window', '0h'], /--window must be whole hours, at least 1h/],
    ['a window in minutes', ['--window', '30m'], /--window must be whole hours/],
  ])('%s: nothing planned or written', async (_what, args, message) => {
    // Later flags win over the defaults in RANGE.
    const result = await runInProcess(['backfill', ...RANGE, ...args, '--wait'], env());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await ledgerRows()).toBe(0);
    expect(await queueState(fx.env)).toEqual([]);
    expect(fx.simulator.stats().total).toBe(0);
  });

  it('no ENVDATA_API_KEY (without --dry-run): nothing planned or written', async () => {
    const result = await runInProcess(['backfill', ...RANGE], env({ ENVDATA_API_KEY: '' }));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/ENVDATA_API_KEY is not set/);
    expect(await ledgerRows()).toBe(0);
    expect(await queueState(fx.env)).toEqual([]);
    expect(fx.simulator.stats().total).toBe(0);
  });
});

describe('envdata backfill on the command line', () => {
  it('--dry-run prints chunks, calls, rows and duration and writes nothing (no key needed)', async () => {
    const estimate = await plannedEstimate();
    const result = await runEnvdata(
      ['backfill', ...RANGE, '--dry-run'],
      env({ ENVDATA_API_KEY: '', ENVDATA_RATE_LIMIT: '10/s' }),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `would plan 20 chunk(s) = 20 API call(s) for 2 location(s), ~${estimate.expectedRows} rows\n`,
    );
    expect(result.stdout).toContain('  expected duration: ~2 s at 10/s\n');
    expect(result.stdout).toContain(
      `pollen: 10 chunk(s), ~${estimate.byDataset.pollen!.expectedRows} rows`,
    );
    expect(result.stdout).toContain('weather: 10 chunk(s), ~480 rows');
    expect(await ledgerRows()).toBe(0);
    expect(await queueState(fx.env)).toEqual([]);
    expect(fx.simulator.stats().total).toBe(0);
  });

  it('--dry-run of a plan shorter than a second says so, never "~0 s"; without a limit, says that', async () => {
    const small = ['--dataset', 'weather', '--from', '2024-06-02', '--to', '2024-06-04'];
    const limited = await runInProcess(
      ['backfill', ...small, '--dry-run'],
      env({ ENVDATA_RATE_LIMIT: '10/s' }),
    );
    expect(limited.code, limited.stderr).toBe(0);
    expect(limited.stdout).toMatch(
      /^would plan 2 chunk\(s\) = 2 API call\(s\) for 2 location\(s\), ~96 rows$/m,
    );
    expect(limited.stdout).toMatch(/^ {2}expected duration: under a second at 10\/s$/m);
    const unlimited = await runInProcess(['backfill', ...small, '--dry-run'], env());
    expect(unlimited.stdout).toContain(
      'expected duration: no rate limit (ENVDATA_RATE_LIMIT=off): as fast as the service answers',
    );
    expect(limited.stdout + unlimited.stdout).not.toMatch(/~0 s/);
    expect(await ledgerRows()).toBe(0);
  });

  it('--wait runs the backfill end to end, exit 0 with a summary; the same again calls nothing', async () => {
    const { expectedRows } = await plannedEstimate();
    const first = await runEnvdata(['backfill', ...RANGE, '--wait'], env());
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^run 1: 20 chunk\(s\) = 20 API call\(s\)/m);
    expect(first.stdout).toContain(
      `run 1 (backfill) done: 20/20 chunks done, 0 failed, ${expectedRows} rows, 20 calls\n`,
    );
    expect(fx.simulator.stats()).toMatchObject({ total: 20, byStatus: { '200': 20 } });

    fx.simulator.resetStats();
    const rowsAfterFirst = await ledgerRows();
    const second = await runEnvdata(['backfill', ...RANGE, '--wait'], env());
    expect(second.code, second.stdout + second.stderr).toBe(0);
    // Nothing to do: no run is written, no worker starts, nothing is logged as a warning.
    expect(second.stdout).toBe(
      'nothing to do, no run written:\n' +
        '  pollen: nothing to do — the ledger holds all of it\n' +
        '  weather: nothing to do — the ledger holds all of it\n',
    );
    expect(second.stderr).toBe('');
    expect(await ledgerRows()).toBe(rowsAfterFirst);
    expect(fx.simulator.stats().total).toBe(0);
  });
});
