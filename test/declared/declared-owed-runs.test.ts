import { writeFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { declaredPlanJson } from '../../src/cli/json/declared-plan-json.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useLocationsFixture } from '../locations/locations-fixture.js';

const fx = useLocationsFixture();
const dir = useTempDir('envdata-owed-');
const envdata = (args: string[]) => runCliInProcess(args, fx.cliEnv());
const DAY = 24 * 3_600_000;

/** A UTC date `days` before today, as a `since`. */
const daysAgo = (days: number) =>
  new Date(Math.floor(Date.now() / DAY) * DAY - days * DAY).toISOString().slice(0, 10);

/** Writes `envdata.yaml` with `locations` and `datasets` lines as given; returns its path. */
async function declare(locations: readonly string[], datasets: string): Promise<string> {
  const file = dir.path('envdata.yaml');
  await writeFile(
    file,
    `version: 1\nlocations:\n${locations.map((l) => `  - ${l}\n`).join('')}datasets:\n${datasets}`,
  );
  return file;
}

const BERLIN = '{ name: Berlin, lat: 52.52, lng: 13.405 }';
const ZERMATT = '{ name: Zermatt, lat: 46.0207, lng: 7.7491, group: alps }';

const chunkStatuses = async (runId: number) =>
  (await fx.app.db.selectFrom('chunk').select('status').where('run_id', '=', runId).execute()).map(
    (c) => c.status,
  );

beforeEach(async () => {
  await fx.app.db.deleteFrom('run').execute();
});

describe('plan and apply while a run is still owed', () => {
  it('after apply --yes with no worker, plan names the run owed, not "no changes"; apply --wait works it to the end', async () => {
    const file = await declare([BERLIN], `  weather: { since: ${daysAgo(2)} }\n`);
    const apply = await envdata(['apply', '-f', file, '--yes']);
    expect(apply.code, apply.stderr).toBe(0);
    const runId = Number(/run (\d+)/.exec(apply.stdout)?.[1]);
    const total = (await chunkStatuses(runId)).length;

    const plan = await envdata(['plan', '-f', file]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).not.toContain('no changes');
    expect(plan.stdout).toMatch(
      new RegExp(
        `^nothing new to plan, but 1 run is still owed: run ${runId} backfill 0 of (\\d+) chunks, ` +
          'no worker connected — start one: envdata worker\n$',
      ),
    );
    if (fx.env.queueBackend === 'redis') {
      // A queue that does not answer is said so, at once: it does not hold the plan up.
      const blind = await runCliInProcess(
        ['plan', '-f', file],
        fx.cliEnv({ REDIS_URL: 'redis://127.0.0.1:1' }),
      );
      expect(blind.code).toBe(0);
      expect(blind.stdout).toContain(
        `run ${runId} backfill 0 of ${total} chunks, workers unknown (the queue did not answer)`,
      );
    }
    const json = declaredPlanJson.parse(
      JSON.parse((await envdata(['plan', '-f', file, '--json'])).stdout),
    );
    expect(json.changes).toBe(false);
    expect(json.owedRuns.map((r) => [r.runId, r.kind, r.status, r.chunks.done])).toEqual([
      [runId, 'backfill', 'running', 0],
    ]);
    expect(json.owedRuns[0]!.waiting?.reason).toBe('no worker connected');
    expect(json.workersConnected).toBe(0);

    // Without --wait, a second apply says the same and starts nothing.
    const again = await envdata(['apply', '-f', file, '--yes']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^nothing new to apply, but 1 run is still owed: run \d+ /);
    expect(await fx.app.db.selectFrom('run').select('run_id').execute()).toHaveLength(1);

    // apply --wait follows the owed run with its local worker, to the end.
    const wait = await runEnvdata(['apply', '-f', file, '--yes', '--wait'], fx.cliEnv());
    expect(wait.code, wait.stdout + wait.stderr).toBe(0);
    expect(wait.stdout).toContain(
      `nothing new to apply, but 1 run is still owed: run ${runId} backfill 0 of ${total} chunks; worked here to the end (--wait)`,
    );
    expect(wait.stdout).toContain(
      `run ${runId} (backfill) done: ${total}/${total} chunks done, 0 failed`,
    );
    expect(new Set(await chunkStatuses(runId))).toEqual(new Set(['done']));
    expect((await envdata(['plan', '-f', file])).stdout).toBe(
      `no changes: the warehouse is as ${file} declares it\n`,
    );
  });

  it("a note of a group's sub-plan names its group and since", async () => {
    const since = daysAgo(1);
    const first = await declare([BERLIN], `  weather: { since: ${since} }\n`);
    const done = await runEnvdata(['apply', '-f', first, '--yes', '--wait'], fx.cliEnv());
    expect(done.code, done.stdout + done.stderr).toBe(0);

    const alpsSince = daysAgo(3);
    const file = await declare(
      [BERLIN, ZERMATT],
      `  weather: { since: ${since}, groups: { alps: { since: ${alpsSince} } } }\n`,
    );
    const plan = await envdata(['plan', '-f', file]);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(/^weather: \d+ hour\(s\) missing for 1 location\(s\)/m);
    expect(plan.stdout).toMatch(/^one backfill run: [1-9]\d* chunk\(s\)/m);
    expect(plan.stdout).toContain(
      `  weather (other locations, since ${since}): nothing to do — the ledger holds all of it\n`,
    );
    expect(plan.stdout).not.toMatch(/^ {2}weather: nothing to do/m);
  });

  it('apply --wait does not resume a paused run it is owed: it names it and exits 1', async () => {
    const file = await declare([BERLIN], `  weather: { since: ${daysAgo(1)} }\n`);
    const apply = await envdata(['apply', '-f', file, '--yes']);
    const runId = Number(/run (\d+)/.exec(apply.stdout)?.[1]);
    expect((await envdata(['pause', String(runId)])).code).toBe(0);

    const plan = await envdata(['plan', '-f', file]);
    expect(plan.stdout).toMatch(
      new RegExp(
        `^nothing new to plan, but 1 run is still owed: run ${runId} backfill paused at 0 of \\d+ chunks \\(continue: envdata resume ${runId}\\)\n$`,
      ),
    );
    const wait = await runEnvdata(['apply', '-f', file, '--yes', '--wait'], fx.cliEnv());
    expect(wait.code, wait.stdout + wait.stderr).toBe(1);
    expect(wait.stdout).toMatch(
      new RegExp(
        `run ${runId} \\(backfill\\) is paused with \\d+ chunk\\(s\\) left: apply does not resume it — continue: envdata resume ${runId} --wait`,
      ),
    );
    expect(await fx.app.db.selectFrom('run').select('run_id').execute()).toHaveLength(1);
    expect((await envdata(['cancel', String(runId)])).code).toBe(0);
  });
});
