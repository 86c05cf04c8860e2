/**
 * The export of `bench:export` in a process of its own, so that its peak RSS is its alone:
 * exports DATABASE_URL to EXPORT_DIR (--full) and prints one JSON line with the summary, the
 * seconds it took and `process.resourceUsage().maxRSS` (KiB).
 */
import { performance } from 'node:perf_hooks';
import { exportParquet } from '../../src/export/export-parquet.js';

const t0 = performance.now();
const summary = await exportParquet({
  databaseUrl: process.env.DATABASE_URL!,
  dir: process.env.EXPORT_DIR!,
  full: true,
});
console.log(
  JSON.stringify({
    rows: summary.rows,
    bytes: summary.bytes,
    partitions: summary.written.length,
    seconds: (performance.now() - t0) / 1000,
    phases: summary.phases,
    maxRssKiB: process.resourceUsage().maxRSS,
  }),
);
