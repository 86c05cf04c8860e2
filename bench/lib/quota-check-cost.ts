import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { admissionStores } from '../../src/admission/admission-stores.js';
import { QuotaGate } from '../../src/admission/quota-gate.js';
import { benchApp, type BenchTarget } from './bench-app.js';
import { BENCH_QUOTA } from './rate-limited-run.js';

/** What checking the quota costs per call, on one backend: part 2's micro-measure. */
export interface QuotaCheckCost {
  readonly checks: number;
  /** Wall time per check, one after the other (a round trip to the backend each), µs. */
  readonly wallMicros: number;
  /** This process's CPU per check, µs. */
  readonly cpuMicros: number;
  /** Checks one core of this process sustains: 1 s over the CPU per check. */
  readonly perCoreSecond: number;
  readonly load: number;
}

/**
 * Takes `checks` calls from the quota gate (`QuotaGate.take`, a backfill's call under
 * `BENCH_QUOTA`), one after the other, on the backend's shared counters: the work each paced
 * call adds when a quota is configured.
 */
export async function measureQuotaCheck(
  target: BenchTarget,
  checks = 2_000,
): Promise<QuotaCheckCost> {
  const app = benchApp(
    target,
    { ENVDATA_QUOTA: BENCH_QUOTA.quota, ENVDATA_SYNC_RESERVE: BENCH_QUOTA.syncReserve },
    'c',
  );
  try {
    const gate = new QuotaGate(admissionStores(app.queues).quota, app.config.quota);
    // Warm: the connection, the script or the statement.
    for (let i = 0; i < 50; i += 1) await gate.take('other');
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < checks; i += 1) await gate.take('other');
    const cpu = process.cpuUsage(cpu0);
    const wallMicros = ((performance.now() - t0) * 1_000) / checks;
    const cpuMicros = (cpu.user + cpu.system) / checks;
    return {
      checks,
      wallMicros,
      cpuMicros,
      perCoreSecond: 1e6 / cpuMicros,
      load: loadavg()[0] ?? 0,
    };
  } finally {
    await app.close();
  }
}
