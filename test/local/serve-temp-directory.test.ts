import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnvdata } from '../harness/start-envdata.js';
import { useTestEnvironment } from '../harness/test-environment.js';

// `envdata serve` and its queues board leave nothing in the temporary directory: every serve used
// to leave an `envdata-bull-board-*` folder there (the board's page template, rewritten).

const env = useTestEnvironment({ queueBackend: 'postgres' });
let temp: string;

beforeAll(async () => {
  temp = await mkdtemp(path.join(tmpdir(), 'envdata-serve-tmp-'));
});

afterAll(async () => {
  await rm(temp, { recursive: true, force: true });
});

/**
 * What the run left in `temp`: nothing, tsx's compile cache included (`startEnvdata` turns it
 * off when dist/ is stale and the sources run as TypeScript).
 */
async function leftIn(dir: string): Promise<string[]> {
  return readdir(dir);
}

describe('envdata serve', () => {
  it('serves the queues board offline and leaves nothing in TMPDIR', async () => {
    const serve = startEnvdata(['serve', '--port', '0'], env.cliEnv({ TMPDIR: temp }));
    try {
      const [, url] = await serve.waitFor(/"url":"(http:\/\/[^"]+)"/);
      const page = await fetch(`${url}/queues`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('envdata queues');
      expect(html).not.toMatch(/fonts\.googleapis/);
    } finally {
      serve.child.kill('SIGTERM');
    }
    expect((await serve.exited).code).toBe(0);
    expect(await leftIn(temp)).toEqual([]);
  }, 60_000);
});
