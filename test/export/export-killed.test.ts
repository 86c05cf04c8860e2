import { watch, type FSWatcher } from 'node:fs';
import { open, readdir, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportParquet } from '../../src/export/export-parquet.js';
import { readManifest } from '../../src/export/export-manifest.js';
import { verifyExport } from '../../src/export/verify-export.js';
import { refreshDailyRollups } from '../../src/warehouse/refresh-daily-rollups.js';
import { startEnvdata } from '../harness/start-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';
import { BERLIN } from './berlin-weather.js';

const wh = useTestWarehouse();
const tmp = useTempDir('envdata-export-killed-');
const CHILD = fileURLToPath(new URL('./export-then-hold.ts', import.meta.url));
const at = (iso: string) => new Date(`${iso}T00:00:00Z`);

/**
 * Watches `dir` for as long as the test runs: every `.parquet` name that appears is opened at
 * once and must be whole (Parquet's magic `PAR1` at both ends); what is not is recorded.
 */
function watchForPartialFiles(dir: string) {
  const partial: string[] = [];
  const seen = new Set<string>();
  const check = async (name: string) => {
    const file = path.join(dir, name);
    const handle = await open(file, 'r').catch(() => undefined);
    if (!handle) return; // renamed away or removed again
    try {
      const { size } = await handle.stat();
      const head = Buffer.alloc(4);
      const tail = Buffer.alloc(4);
      await handle.read(head, 0, 4, 0);
      await handle.read(tail, 0, 4, Math.max(0, size - 4));
      seen.add(name);
      if (head.toString() !== 'PAR1' || tail.toString() !== 'PAR1')
        partial.push(`${name} (${size} bytes)`);
    } finally {
      await handle.close();
    }
  };
  const checks: Promise<void>[] = [];
  const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, name) => {
    if (name && name.endsWith('.parquet')) checks.push(check(name));
  });
  return {
    partial,
    seen,
    async stop() {
      watcher.close();
      await Promise.all(checks);
    },
  };
}

let dir: string;

beforeAll(async () => {
  const berlin = await wh.addLocation(BERLIN);
  for (const month of ['2024-01-10', '2024-02-10', '2024-03-10', '2024-04-10']) {
    const from = at(month);
    await wh.landWeather(berlin.locationId, { from, to: new Date(from.getTime() + 86_400_000) });
  }
  await refreshDailyRollups(wh.app.db);
  dir = tmp.path('export');
  await mkdir(dir, { recursive: true });
});

let watcher: ReturnType<typeof watchForPartialFiles> | undefined;
afterAll(async () => {
  await watcher?.stop();
});

describe('an export killed with kill -9 halfway', () => {
  it('then run again, writes only what it had not finished; verify passes; no partial file ever visible', async () => {
    watcher = watchForPartialFiles(dir);
    const child = startEnvdata(
      [],
      { DATABASE_URL: wh.env.databaseUrl, EXPORT_DIR: dir },
      {
        command: [process.execPath, '--import', 'tsx', CHILD],
      },
    );
    const [, first] = await child.waitFor(/^held (\S+)$/m);
    expect(first).toBe('dataset=weather_hourly/year=2024/month=01/part.parquet');
    child.child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    const cut = (await readManifest(dir))!;
    expect(cut.complete).toBe(false);
    expect(cut.partitions.map((p) => p.file)).toEqual([first]);
    // What a killed run leaves besides: a temporary file of a partition in the making.
    const leftover = path.join(
      dir,
      'dataset=weather_hourly/year=2024/month=02/part.parquet.tmp-999999',
    );
    await mkdir(path.dirname(leftover), { recursive: true });
    await writeFile(leftover, 'PAR1 half a file');

    const rerun = await exportParquet({ databaseUrl: wh.env.databaseUrl, dir });
    expect(rerun.written).toEqual([
      'weather_hourly/2024-02',
      'weather_hourly/2024-03',
      'weather_hourly/2024-04',
      'weather_daily/2024-01',
      'weather_daily/2024-02',
      'weather_daily/2024-03',
      'weather_daily/2024-04',
      'locations',
    ]);
    expect(rerun.unchanged).toBe(1);
    expect((await readManifest(dir))!.complete).toBe(true);
    expect(await verifyExport({ databaseUrl: wh.env.databaseUrl, dir })).toMatchObject({
      difference: null,
      partitions: 9,
    });
    const names = await readdir(dir, { recursive: true });
    expect(names.filter((n) => n.includes('.tmp-') || n.includes('.staging-'))).toEqual([]);
    await watcher.stop();
    expect(watcher.partial).toEqual([]);
    expect(watcher.seen.size).toBeGreaterThanOrEqual(9);
  });
});
