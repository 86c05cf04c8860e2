import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { countRows } from '../harness/count-rows.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestEnvironment } from '../harness/test-environment.js';
import { writeCsvFile } from '../locations/write-csv-file.js';

const MB = 1024 * 1024;
const env = useTestEnvironment();
let app: App;
const dir = useTempDir('envdata-import-limits-');

beforeAll(() => {
  app = createApp(env.config());
});
beforeEach(async () => {
  await app.db.deleteFrom('location').execute();
});
afterAll(async () => {
  await app.close();
});

const base = (extra: Record<string, string> = {}) => env.cliEnv({ LOG_LEVEL: 'silent', ...extra });

const registered = () => countRows(app.db, 'location');

describe('envdata locations import of a large file', () => {
  it('refuses a 100 MB file at ENVDATA_IMPORT_MAX_ROWS with exit 2, in a 96 MB heap, writing nothing', async () => {
    const file = dir.path('cities.csv');
    await writeCsvFile(file, { bytes: 100 * MB });
    // The heap is capped far below the file: reading it whole would end in "out of memory".
    const result = await runEnvdata(
      ['locations', 'import', file],
      base({ NODE_OPTIONS: '--max-old-space-size=96' }),
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim()).toBe(
      `envdata: ${file}: the file has more than 100,000 rows, the most one import reads (ENVDATA_IMPORT_MAX_ROWS=100000); nothing was written: split it into files of at most 100,000 rows, or raise ENVDATA_IMPORT_MAX_ROWS`,
    );
    expect(await registered()).toBe(0);
  });

  it('imports a file of 10,000 rows', async () => {
    const file = dir.path('10k.csv');
    await writeCsvFile(file, { rows: 10_000 });
    const result = await runEnvdata(['locations', 'import', file], base());
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/imported 10000 location\(s\)/);
    expect(await registered()).toBe(10_000);
  });

  it('takes ENVDATA_IMPORT_MAX_ROWS from the environment', async () => {
    const file = dir.path('11.csv');
    await writeCsvFile(file, { rows: 11 });
    const result = await runEnvdata(
      ['locations', 'import', file],
      base({ ENVDATA_IMPORT_MAX_ROWS: '10' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/more than 10 rows/);
    expect(await registered()).toBe(0);
  });
});
