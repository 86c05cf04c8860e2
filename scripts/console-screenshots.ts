/**
 * `npm run docs:screenshots` — the pictures of docs/console.md ("Operations console"):
 * docs/console-runs.png (the Runs page) and docs/console-coverage.png (the coverage grid), taken
 * in headless Chromium (/usr/bin/chromium) from `envdata serve`'s routes over a scratch database
 * filled like `npm run bench:console`'s (200 locations × 30 years, holes of every kind, runs in
 * every state). The database is dropped afterwards.
 */
import { fileURLToPath } from 'node:url';
import { benchDatabase, DEFAULT_SERVER_URL } from '../bench/lib/bench-database.js';
import { fillConsoleLedger } from '../bench/lib/console-fill.js';
import { createApp } from '../src/app.js';
import { serveRoutes } from '../src/cli/serve-routes.js';
import { configFromDefaults } from '../src/config/load-config.js';
import { ensureDatabase } from '../src/warehouse/ensure-database.js';
import { migrateToLatest } from '../src/warehouse/migrate-to-latest.js';
import { launchChromium } from '../test/harness/launch-chromium.js';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));
// A script is an entry point: the one place here that reads the environment.
const bench = benchDatabase(process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL);
try {
  await ensureDatabase(bench.url);
  const app = createApp(
    configFromDefaults({
      DATABASE_URL: bench.url,
      ENVDATA_QUEUE_BACKEND: 'postgres',
      ENVDATA_RATE_LIMIT: '20/s',
      LOG_LEVEL: 'warn',
    }),
  );
  const browser = await launchChromium();
  try {
    await migrateToLatest(app.db, app.logger);
    await fillConsoleLedger(app.db, { locations: 200, years: 30, runs: 6, chunksPerRun: 3_000 });
    const serve = { host: '127.0.0.1', port: 0 };
    await app.start({ http: { ...serve, routes: serveRoutes(app, serve) } });
    const page = await browser.newPage({ viewport: { width: 1400, height: 520 } });
    await page.goto(`${app.http!.url}/#/runs`);
    await page.waitForSelector('tr[data-run-id]');
    await page.screenshot({ path: `${DOCS}console-runs.png` });
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${app.http!.url}/#/coverage`);
    await page.waitForSelector('#coverage-grid .row');
    await page.screenshot({ path: `${DOCS}console-coverage.png` });
    process.stdout.write(`wrote ${DOCS}console-runs.png and ${DOCS}console-coverage.png\n`);
  } finally {
    await browser.close();
    await app.stop();
  }
} finally {
  await bench.drop();
}
