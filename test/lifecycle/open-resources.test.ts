import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { openResources } from '../../src/lifecycle/open-resources.js';
import { createServiceClient } from '../../src/service/service-client.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import { useTestEnvironment } from '../harness/test-environment.js';

const env = useTestEnvironment();
const kinds = () =>
  openResources()
    .map((r) => r.kind)
    .sort();

describe('open resource tracking (what the per-file leak check sees)', () => {
  it('sees every pool, connection, client and simulator until it is closed', async () => {
    expect(kinds()).toEqual([]);
    const simulator = await startSimulator();
    const client = createServiceClient({
      baseUrl: simulator.url,
      apiKey: DEMO_API_KEY,
      connections: 1,
      connectTimeoutMs: 1000,
      requestTimeoutMs: 5000,
    });
    const app = createApp(env.config());
    await app.db.selectFrom('location').select('location_id').execute();
    await app.queues.queue('ingest').getJobCounts();
    // The queue's own connection: a Redis client, or on Postgres the queue's pool.
    const queueConnection = env.queueBackend === 'redis' ? 'redis' : 'queue pg pool';
    expect(kinds()).toEqual(
      ['pg pool', 'queue factory', queueConnection, 'service client', 'simulator'].sort(),
    );

    await client.close();
    await simulator.close();
    await app.close();
    expect(kinds()).toEqual([]);
  });
});
