import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useBackfillFixture } from '../harness/backfill-fixture.js';
import { launchChromium } from '../harness/launch-chromium.js';
import { serveConsole, type ServedConsole } from './serve-console.js';
import { needsTools } from '../harness/system-tools.js';

// Signing in and the `Host` check in a real headless Chromium, which reads a URL the way an
// operator's browser does (a backslash as a slash, tabs and newlines dropped).
const fx = useBackfillFixture();
const TOKEN = 'sign-in-test-token-0123456789';
/** A name Chromium resolves to 127.0.0.1, as a DNS-rebinding site makes its own name do. */
const REBOUND = 'rebound.example';
let browser: Browser;
let served: ServedConsole;
let context: BrowserContext | undefined;
/** Every request the page made to a host other than the console's (answered by the test). */
let elsewhere: string[] = [];

beforeAll(async () => {
  browser = await launchChromium([`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`]);
  served = await serveConsole(fx, { token: TOKEN });
});

afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

afterEach(async () => {
  await context?.close();
  context = undefined;
});

/** A page whose requests to any other host never leave Chromium: they are recorded, answered. */
async function newPage(): Promise<Page> {
  context = await browser.newContext();
  elsewhere = [];
  const own = new URL(served.url).host;
  await context.route(
    (url) => url.host !== own,
    (route) => {
      elsewhere.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>evil</h1>' });
    },
  );
  return context.newPage();
}

/** Signs in on `page`'s form and waits for the page it lands on; its URL. */
async function submitToken(page: Page): Promise<string> {
  await page.fill('input[name=token]', TOKEN);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/login', { waitUntil: 'load' }),
    page.click('button[type=submit]'),
  ]);
  return page.url();
}

/** `next` values that lead a browser to another host unless refused (`/` then). */
const HOSTILE = [
  '/\\evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/\\/evil.example',
  '//evil.example',
  '//evil.example/#/runs',
  '\\/evil.example',
  ' //evil.example',
  'https://evil.example',
  'http:evil.example',
  'javascript:alert(1)',
  // Paths that only become another host once their dot segments are resolved.
  '/..//evil.example',
  '/.//evil.example',
  '/a/../..//evil.example',
  '/%2e%2e//evil.example',
  '/%2E//evil.example/#/runs',
];

describe('signing in', needsTools('chromium'), () => {
  it.each(HOSTILE)('never leaves the console for next=%j given in the link', async (next) => {
    const page = await newPage();
    await page.goto(`${served.url}/login?next=${encodeURIComponent(next)}`);
    expect(await submitToken(page)).toBe(`${served.url}/`);
    expect(elsewhere).toEqual([]);
  });

  it.each(HOSTILE)('never leaves the console for next=%j posted by the form', async (next) => {
    const page = await newPage();
    await page.goto(`${served.url}/login`);
    // What a hand-made form would post: the field as given, whatever the link said.
    await page.locator('input[name=next]').evaluate((input, value) => {
      (input as unknown as { value: string }).value = value;
    }, next);
    expect(await submitToken(page)).toBe(`${served.url}/`);
    expect(elsewhere).toEqual([]);
  });

  it('goes to a path of the console as asked, escaped ones included', async () => {
    for (const [next, landing] of [
      ['/#/runs/3', '/#/runs/3'],
      ['/queues?x=1#top', '/queues?x=1#top'],
      ['/%5Cevil.example', '/%5Cevil.example'],
      ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ] as const) {
      const page = await newPage();
      await page.goto(`${served.url}/login?next=${encodeURIComponent(next)}`);
      expect(await submitToken(page), next).toBe(`${served.url}${landing}`);
      expect(elsewhere).toEqual([]);
      await context!.close();
    }
  });
});

describe('the Host check', needsTools('chromium'), () => {
  it('refuses a page that reaches the loopback console by another site’s name (DNS rebinding)', async () => {
    const port = new URL(served.url).port;
    const page = await newPage();
    await context!.unrouteAll();
    const rebound = await page.goto(`http://${REBOUND}:${port}/api/runs`);
    expect(rebound?.status()).toBe(421);
    expect(await page.textContent('body')).toMatch(/answers to localhost, 127\.0\.0\.1, \[::1\]/);
    expect(await page.textContent('body')).not.toContain('"runs"');
    const own = await page.goto(`http://localhost:${port}/api/runs`);
    expect(own?.status()).toBe(200);
    expect(await own?.json()).toHaveProperty('runs');
  });
});
