import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { runDemo } from '../../src/demo/run-demo.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';
import { useTestEnvironment } from '../harness/test-environment.js';
import { waitForRun } from '../harness/wait-for-run.js';

const env = useTestEnvironment();
let simulator: RunningSimulator;
let app: App;

beforeAll(async () => {
  simulator = await startSimulator();
  app = createApp(
    env.config({
      ENVDATA_BASE_URL: simulator.url,
      ENVDATA_API_KEY: DEMO_API_KEY,
      ENVDATA_RATE_LIMIT: 'off',
    }),
  );
});

afterAll(async () => {
  await app.close();
  await simulator.close();
});

describe('runDemo', () => {
  it('ingests every planned chunk with exactly one call each, then nothing on a second run', async () => {
    const lines: string[] = [];
    const first = await runDemo(app, {
      days: { pollen: 4, weather: 6 },
      print: (l) => lines.push(l),
      watch: (runId) => waitForRun(app.db, runId),
    });
    expect(first.failed).toBe(0);
    expect(first.chunks).toBeGreaterThanOrEqual(4 * (2 + 3));
    expect(simulator.stats().total).toBe(first.chunks);
    const { rows } = await sql<{ n: number }>`
      select count(distinct location_id)::int as n from analytics.weather_hourly`.execute(app.db);
    expect(rows[0]!.n).toBe(4);
    expect(lines.join('\n')).toMatch(/Berlin/);

    simulator.resetStats();
    const second = await runDemo(app, {
      days: { pollen: 4, weather: 6 },
      print: () => undefined,
      watch: (runId) => waitForRun(app.db, runId),
    });
    // Only a window that grew with the clock may be fetched again; a finished range costs nothing.
    expect(simulator.stats().total).toBe(second.chunks);
    expect(second.chunks).toBeLessThanOrEqual(8);
    expect(second.failed).toBe(0);
  });
});
