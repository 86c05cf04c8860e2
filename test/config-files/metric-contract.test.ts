import { describe, expect, it } from 'vitest';
import { EnvdataMetrics } from '../../src/metrics/envdata-metrics.js';
import { captureLogger } from '../harness/capture-logger.js';
import { CONTRACT_METRICS } from './metric-contract.js';

describe('the metric contract the dashboards are held to', () => {
  it('is what envdata registers: the same envdata_* names, each of the same type', async () => {
    const metrics = new EnvdataMetrics({
      logger: captureLogger().logger,
      sources: {
        chunks: () => Promise.resolve({}),
        queueJobs: () => Promise.resolve({}),
        freshness: () => Promise.resolve([]),
        workersAlive: () => Promise.resolve(0),
      },
    });
    const registered = (await metrics.registry.getMetricsAsJSON())
      .filter((m) => m.name.startsWith('envdata_'))
      .map((m) => [m.name, String(m.type)] as const);
    expect(Object.fromEntries(registered)).toEqual(CONTRACT_METRICS);
  });
});
