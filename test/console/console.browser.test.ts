import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { QuotaGate } from '../../src/admission/quota-gate.js';
import { recordNotification } from '../../src/ledger/record-notification.js';
import { startBackfill } from '../../src/runs/start-backfill.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import { launchChromium } from '../harness/launch-chromium.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { serveConsole, type ServedConsole } from './serve-console.js';
import { needsTools } from '../harness/system-tools.js';

// The console in a real headless Chromium, over a real backfill: workers against the simulator.
const fx = useBackfillFixture(
  {},
  { ENVDATA_REFETCH_ATTEMPTS: '1', ENVDATA_REFETCH_DELAY_MS: '20' },
);
const TOKEN = 'browser-test-token-0123456789';
/** What the DOM takes to show a change: a few polls of the page (every 3 s). */
const DOM_TIMEOUT_MS = 30_000;
let browser: Browser;
let served: ServedConsole;
const workers: IngestWorker[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  served = await serveConsole(fx, { token: TOKEN });
});

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
});

async function openPage(hash: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${served.url}/${hash}`);
  return page;
}

async function signIn(page: Page): Promise<void> {
  await page.goto(`${served.url}/login?next=${encodeURIComponent('/#/runs')}`);
  await page.fill('input[name=token]', TOKEN);
  await Promise.all([page.waitForURL(`${served.url}/#/runs`), page.click('button[type=submit]')]);
}

const berlin = () => fx.locations.find((l) => l.name === 'Berlin')!;

describe('the console in a browser', needsTools('chromium'), () => {
  it('shows a running backfill advance, live, until it is done', async () => {
    // 20 chunks, planned before any worker runs: the page first sees none done.
    const start = await startBackfill(fx.app, {
      ...backfillRange('2024-06-02', '2024-06-12'),
      locations: fx.locations,
    });
    const runId = start.runId!;
    const page = await openPage('#/runs');
    const row = page.locator(`tr[data-run-id="${runId}"]`);
    await row.waitFor({ timeout: DOM_TIMEOUT_MS });
    expect(await row.getAttribute('data-done')).toBe('0');
    expect(await row.getAttribute('data-total')).toBe('20');
    // No worker yet: the row says why nothing moves, as `envdata status` does.
    expect(await row.locator('.waiting').textContent()).toBe(
      'waiting: no worker connected — start `envdata worker`',
    );
    // Every value the row shows from now on, as the page redraws it.
    await page.evaluate(`
      window.seen = [];
      new MutationObserver(() => {
        const done = document.querySelector('tr[data-run-id]')?.getAttribute('data-done');
        if (done && window.seen.at(-1) !== done) window.seen.push(done);
      }).observe(document.getElementById('view'), { childList: true, subtree: true });
    `);

    // Two calls a second: the run takes about ten seconds, several polls of the page.
    const app = fx.newApp({ ENVDATA_RATE_LIMIT: '2/s' });
    workers.push(IngestWorker.start(app, { concurrency: 2 }));
    await page.waitForSelector(`tr[data-run-id="${runId}"][data-state="done"][data-done="20"]`, {
      timeout: 60_000,
    });
    const seen = (await page.evaluate('window.seen')) as string[];
    const between = seen.map(Number).filter((n) => n > 0 && n < 20);
    expect(between.length, `values shown: ${seen.join(', ')}`).toBeGreaterThan(0);
    expect(seen.map(Number)).toEqual([...seen.map(Number)].sort((a, b) => a - b));
    expect(await row.locator('.bar .done').count()).toBe(1);
    await page.close();
  });

  it('groups a run’s failures by error, and Retry failed lands them', async () => {
    fx.simulator.addFaultScripts('weather:error=503x2');
    const app = fx.newApp({ ENVDATA_MAX_ATTEMPTS: '1' });
    const start = await startBackfill(app, {
      ...backfillRange('2024-06-12', '2024-06-16', { datasets: ['weather'] }),
      locations: fx.locations,
    });
    const runId = start.runId!;
    workers.push(IngestWorker.start(app, { concurrency: 1 }));
    const failed = await waitForRun(app.db, runId);
    expect(failed).toMatchObject({ status: 'failed', failed: 2, done: 2 });

    const page = await browser.newPage();
    await signIn(page);
    await page.goto(`${served.url}/#/runs/${runId}`);
    const group = page.locator('#failures tr[data-code="SERVER_ERROR"]');
    await group.waitFor({ timeout: DOM_TIMEOUT_MS });
    expect(await group.getAttribute('data-chunks')).toBe('2');
    expect(await group.textContent()).toMatch(/the service failed/);
    // The run's scope beside its progress.
    expect(await page.locator('#run-datasets td').textContent()).toBe('weather');
    expect(await page.locator('#run-range td').textContent()).toBe(
      '2024-06-12 00:00 – 2024-06-16 00:00',
    );
    expect(await page.locator('#run-locations td').textContent()).toMatch(
      new RegExp(`^${fx.locations.length}: `),
    );
    await page.click('button:has-text("Retry failed")');
    await page.waitForSelector('#action-message:has-text("2 failed chunk(s) re-queued")', {
      timeout: DOM_TIMEOUT_MS,
    });
    await page.waitForSelector('#run-summary tr[data-failed="0"]', { timeout: DOM_TIMEOUT_MS });
    await page.waitForSelector('#run-summary tr[data-done="4"][data-total="4"]', {
      timeout: DOM_TIMEOUT_MS,
    });
    await page.waitForSelector('#run-state:has-text("done")', { timeout: DOM_TIMEOUT_MS });
    await page.waitForSelector('#no-failures', { timeout: DOM_TIMEOUT_MS });
    await page.close();
  });

  it('keeps actions for those with the token: the button is off and the API refuses', async () => {
    const page = await openPage('#/runs/1');
    const retry = page.locator('button:has-text("Retry failed")');
    await retry.waitFor({ timeout: DOM_TIMEOUT_MS });
    expect(await retry.isDisabled()).toBe(true);
    await page.waitForSelector('#sign-in');
    const status = await page.evaluate(
      `fetch('/api/runs/1/retry-failed', { method: 'POST' }).then((r) => r.status)`,
    );
    expect(status).toBe(401);
    await page.close();
  });

  it('colours a coverage cell by its state: a month with hours missing upstream', async () => {
    // Berlin's weather of early May 2024, each answer six hours short, every time.
    fx.simulator.setFaults('weather-history:short=6@100%');
    try {
      const start = await startBackfill(fx.app, {
        ...backfillRange('2024-05-03', '2024-05-07', { datasets: ['weather'] }),
        locations: [berlin()],
      });
      workers.push(IngestWorker.start(fx.app, { concurrency: 2 }));
      expect(await waitForRun(fx.app.db, start.runId!)).toMatchObject({ missingHours: 12 });
    } finally {
      fx.simulator.clearFaults();
    }
    const page = await openPage('#/coverage');
    await page.waitForSelector('#coverage-grid');
    await page.selectOption('select[name=dataset]', 'weather');
    const cell = (location: number, month: string) =>
      page.locator(`.row[data-location-id="${location}"] i[data-bucket="${month}"]`);
    await page.waitForSelector(
      `.row[data-location-id="${berlin().locationId}"] i[data-bucket="2024-05"][data-state="m"]`,
      { timeout: DOM_TIMEOUT_MS },
    );
    expect(await cell(berlin().locationId, '2024-05').getAttribute('title')).toBe(
      'Berlin 2024-05: missing upstream',
    );
    // June landed in part; April nothing at all.
    expect(await cell(berlin().locationId, '2024-06').getAttribute('data-state')).toBe('p');
    expect(await cell(berlin().locationId, '2024-04').getAttribute('data-state')).toBe('.');
    expect(await page.locator('#coverage-legend').textContent()).toContain('missing upstream');
    // The selection is in the address: a reload or a shared link shows the same grid.
    await page.waitForURL(/#\/coverage\?dataset=weather&bucket=month&page=1&pageSize=50$/);
    const narrow = await browser.newPage({ viewport: { width: 240, height: 900 } });
    await narrow.goto(page.url());
    await narrow.waitForSelector(
      `.row[data-location-id="${berlin().locationId}"] i[data-bucket="2024-05"][data-state="m"]`,
      { timeout: DOM_TIMEOUT_MS },
    );
    expect(await narrow.locator('select[name=dataset]').inputValue()).toBe('weather');
    // Wider than the window, it opens on the present: scrolled to its right end.
    const scroll = await narrow
      .locator('#coverage-grid')
      .evaluate((g) => ({ left: g.scrollLeft, width: g.clientWidth, total: g.scrollWidth }));
    expect(scroll.total).toBeGreaterThan(scroll.width);
    expect(scroll.left + scroll.width).toBeGreaterThanOrEqual(scroll.total - 1);
    await narrow.close();
    await page.close();
  });

  it('shows a quota gauge beside the rate chart: calls used of the limit, and the cost', async () => {
    const env = {
      ENVDATA_QUOTA: '1000/day',
      ENVDATA_SYNC_RESERVE: '100',
      ENVDATA_PRICE_PER_CALL: '0.5 EUR',
      ENVDATA_BUDGET: '400 EUR/month',
    };
    const quoted = await serveConsole(fx, { env });
    try {
      // Three calls counted by a worker elsewhere, on the shared counters.
      const gate = new QuotaGate(admissionStores(quoted.app.queues).quota, quoted.app.config.quota);
      for (let i = 0; i < 3; i += 1) expect(await gate.take('sync')).toBeUndefined();
      const [day, month] = await gate.usage();
      // A 12-hour locale: the console must not follow it.
      const page = await browser.newPage({
        viewport: { width: 1400, height: 900 },
        locale: 'en-US',
      });
      await page.goto(`${quoted.url}/#/rate-limit`);
      const gauge = page.locator('#quota-gauge-day');
      await gauge.waitFor({ timeout: DOM_TIMEOUT_MS });
      expect(await gauge.getAttribute('data-used')).toBe(String(day!.used));
      expect(await gauge.getAttribute('data-limit')).toBe('1000');
      expect(await gauge.textContent()).toContain(`day ${day!.used} / 1,000 calls`);
      expect(await gauge.textContent()).toContain('100 kept for the sync');
      const monthly = page.locator('#quota-gauge-month');
      // The budget pays for 800 calls a month: the month's cap.
      expect(await monthly.getAttribute('data-limit')).toBe('800');
      expect(await monthly.textContent()).toContain(
        `€${(month!.used / 2).toFixed(2)} spent · budget €400.00`,
      );
      // Beside the chart, not below it.
      const [chartBox, gaugeBox] = await Promise.all([
        page.locator('#rate-chart').boundingBox(),
        page.locator('#quota-gauge').boundingBox(),
      ]);
      expect(gaugeBox!.x).toBeGreaterThan(chartBox!.x + chartBox!.width - 1);
      // The quota and the money in the header of every page, the run list included.
      const header = page.locator('#quota-header');
      await expect
        .poll(() => header.textContent(), { timeout: DOM_TIMEOUT_MS })
        .toContain(`day ${day!.used} / 1,000 (€${(day!.used / 2).toFixed(2)})`);
      expect(await header.textContent()).toContain(
        `month €${(month!.used / 2).toFixed(2)} of €400.00`,
      );
      await page.goto(`${quoted.url}/#/runs`);
      await page.locator('#runs, table').first().waitFor({ timeout: DOM_TIMEOUT_MS });
      expect(await header.isVisible()).toBe(true);
      await page.goto(`${quoted.url}/#/rate-limit`);
      await gauge.waitFor({ timeout: DOM_TIMEOUT_MS });
      // Times in UTC, 24-hour, whatever the browser's locale: the page's clock and the chart's
      // cursor (its axis is drawn on a canvas, with the same formatter).
      expect(await page.locator('#updated').textContent()).toMatch(/^updated \d\d:\d\d:\d\d UTC$/);
      const cursorTime = page
        .locator('#rate-chart .u-legend .u-series')
        .first()
        .locator('.u-value');
      // The chart may be drawn (or redrawn by a refresh) after the gauge shows, and uPlot only
      // reads the cursor on a mouse move: move over the plot on every look, from its box now.
      const hoverPlot = async () => {
        const plot = await page.locator('#rate-chart .u-over').boundingBox();
        if (plot) {
          await page.mouse.move(plot.x + plot.width / 2 - 1, plot.y + plot.height / 2);
          await page.mouse.move(plot.x + plot.width / 2, plot.y + plot.height / 2);
        }
        return cursorTime.textContent();
      };
      await expect
        .poll(hoverPlot, { timeout: DOM_TIMEOUT_MS })
        .toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await page.close();
    } finally {
      await quoted.stop();
    }
  });

  it('lists the workers alive on the Workers page, with their jobs in hand', async () => {
    workers.push(IngestWorker.start(fx.app, { concurrency: 3 }));
    const page = await openPage('#/workers');
    const row = page.locator(`#workers tr[data-pid="${process.pid}"]`);
    await page.waitForSelector(`#workers tr[data-pid="${process.pid}"] >> text=alive`, {
      timeout: DOM_TIMEOUT_MS,
    });
    const cells = await row.locator('td').allTextContents();
    expect(cells[2]).toBe('0 / 3');
    expect(cells[3]).toMatch(/^\d+ s ago$/);
    expect(await page.locator('main p').first().textContent()).toContain(
      '1 worker(s) alive, busy with 0 of 3 job slots.',
    );
    await page.close();
  });

  it('lists the recent alerts on the Alerts page, with their message and delivery', async () => {
    // Earlier tests of this file may have raised alerts of their own (a run with failed chunks).
    await recordNotification(fx.app.db, {
      key: 'run:91:stopped',
      event: 'key-refused',
      details: { runId: 91, code: 'UNAUTHORIZED' },
    });
    const page = await openPage('#/alerts');
    // The event, what to do, and that no target is set.
    const row = page.locator('#alerts tr[data-event="key-refused"]');
    await row.waitFor({ timeout: DOM_TIMEOUT_MS });
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).toBe('key-refused');
    expect(cells[2]).toContain('check ENVDATA_API_KEY, then envdata resume 91');
    expect(cells[3]).toBe('no target');
    expect(await page.locator('main p').first().textContent()).toContain(
      'ENVDATA_NOTIFY_URL is not set',
    );
    await page.close();
  });
});
