import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldDoneChunks } from '../../src/ledger/fold-done-chunks.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { serveConsole, type ServedConsole } from './serve-console.js';

// One read model of progress (issue 39, item 3): the console (its run list and its run page) and
// `envdata status` (text and `--json`) say the same of every run, before and after its chunks are
// folded. Re-fetches wait 20 ms so a chunk missing hours upstream ends in milliseconds.
const fx = useBackfillFixture(
  {},
  { ENVDATA_REFETCH_ATTEMPTS: '1', ENVDATA_REFETCH_DELAY_MS: '20', ENVDATA_CHUNK_RETENTION: '24h' },
);
const H = 3_600_000;
let served: ServedConsole;

beforeAll(async () => {
  served = await serveConsole(fx);
});
afterAll(() => served.stop());

interface ChunksJson {
  total: number;
  done: number;
  missingUpstream: number;
  failed: number;
  inFlight: number;
  running: number;
  notYetDispatched: number;
  dropped: number;
  refetching: number;
}
interface StatusRunJson {
  runId: number;
  status: string;
  rows: number;
  calls: number;
  chunks: ChunksJson;
}
interface ConsoleRunJson {
  runId: number;
  status: string;
  total: number;
  rows: number;
  calls: number;
  chunks: Record<'done' | 'missingUpstream' | 'running' | 'queued' | 'failed' | 'dropped', number>;
}

/** `envdata <args> --json`, parsed. */
async function cliJson<T>(args: string[]): Promise<T> {
  const result = await runCliInProcess([...args, '--json'], fx.cliEnv());
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** What `status --json`, `status RUN --json`, `/api/runs` and `/api/runs/RUN` say of `runId`. */
async function everySay(runId: number) {
  const list = await cliJson<{ runs: StatusRunJson[] }>(['status']);
  const one = await cliJson<{ run: StatusRunJson }>(['status', String(runId)]);
  const rows = (await (await fetch(`${served.url}/api/runs`)).json()) as {
    runs: ConsoleRunJson[];
  };
  const page = (await (await fetch(`${served.url}/api/runs/${runId}`)).json()) as {
    run: ConsoleRunJson;
    progress: StatusRunJson & Omit<ChunksJson, 'total'> & { total: number };
  };
  return {
    status: list.runs.find((r) => r.runId === runId)!,
    statusRun: one.run,
    row: rows.runs.find((r) => r.runId === runId)!,
    page,
  };
}

/**
 * Holds the console and `status` equal on `runId`: the bar's segments are `status`'s chunks split
 * (done in full + missing upstream = done; queued = in flight not running + not yet dispatched).
 * Returns `status --json`'s run.
 */
async function expectAgreement(runId: number): Promise<StatusRunJson> {
  const { status, statusRun, row, page } = await everySay(runId);
  expect(statusRun).toEqual(status);
  const { chunks } = status;
  const bar = {
    done: chunks.done - chunks.missingUpstream,
    missingUpstream: chunks.missingUpstream,
    running: chunks.running,
    queued: chunks.inFlight - chunks.running + chunks.notYetDispatched,
    failed: chunks.failed,
    dropped: chunks.dropped,
  };
  const said = {
    status: status.status,
    total: chunks.total,
    rows: status.rows,
    calls: status.calls,
  };
  for (const run of [row, page.run]) {
    expect(run.chunks).toEqual(bar);
    expect({ status: run.status, total: run.total, rows: run.rows, calls: run.calls }).toEqual(
      said,
    );
  }
  const { progress } = page;
  expect({
    total: progress.total,
    done: progress.done,
    missingUpstream: progress.missingUpstream,
    failed: progress.failed,
    inFlight: progress.inFlight,
    running: progress.running,
    notYetDispatched: progress.notYetDispatched,
    dropped: progress.dropped,
    refetching: progress.refetching,
  }).toEqual(chunks);
  return status;
}

describe('the console and `envdata status` agree on a run', () => {
  it('with chunks missing hours upstream, before and after its chunks are folded', async () => {
    // Every weather answer lacks its last six hours, even when asked again; pollen is whole.
    fx.simulator.setFaults('weather-history:short=6@100%');
    const { runId } = await fx.workBackfill(backfillRange('2024-06-02', '2024-06-06'));
    fx.simulator.clearFaults();

    const before = await expectAgreement(runId);
    expect(before).toMatchObject({
      status: 'done',
      calls: 4 * 2 + 4,
      chunks: {
        total: 8,
        done: 8,
        missingUpstream: 4,
        failed: 0,
        inFlight: 0,
        notYetDispatched: 0,
        dropped: 0,
      },
    });

    // Berlin's chunks finished two days ago: folded into the run (ENVDATA_CHUNK_RETENTION 24 h),
    // two with holes among them. Brisbane's stay chunk rows.
    await sql`
      update envdata.chunk set finished_at = now() - interval '2 days'
      where run_id = ${runId} and location_id = ${fx.locations[0]!.locationId}`.execute(fx.app.db);
    expect(await foldDoneChunks(fx.app.db, 24 * H)).toBe(4);
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.chunk where run_id = ${runId}`.execute(fx.app.db);
    expect(rows[0]!.n).toBe(4);

    // A folded chunk with holes is still "missing upstream", not "done".
    expect(await expectAgreement(runId)).toEqual(before);

    const text = await runCliInProcess(['status'], fx.cliEnv());
    expect(text.stdout).toMatch(new RegExp(`${runId} +backfill done +100% {2}8/8 chunks`));
  });

  it('cancelled, with its unfetched chunks dropped', async () => {
    // No worker: every chunk is still to be fetched when the run is cancelled.
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-10', '2024-06-14'),
      locations: fx.locations,
    });
    const runId = start.runId!;
    const cancelled = await runCliInProcess(['cancel', String(runId)], fx.cliEnv());
    expect(cancelled.code, cancelled.stderr).toBe(0);

    expect(await expectAgreement(runId)).toMatchObject({
      status: 'cancelled',
      chunks: { total: 8, done: 0, failed: 0, inFlight: 0, notYetDispatched: 0, dropped: 8 },
    });
    const list = await runCliInProcess(['status'], fx.cliEnv());
    expect(list.stdout).toMatch(
      new RegExp(`${runId} +backfill cancelled +0% {2}0/8 chunks, 0 rows, 0 calls, 8 dropped`),
    );
    const one = await runCliInProcess(['status', String(runId)], fx.cliEnv());
    expect(one.stdout).toContain(
      `run ${runId} (backfill) cancelled: 0/8 chunks done, 0 failed, 8 dropped (cancelled), 0 rows, 0 calls`,
    );
  });
});
