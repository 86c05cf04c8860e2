/**
 * A child process for test/export/export-killed.test.ts: exports DATABASE_URL's warehouse to
 * EXPORT_DIR, and once the first partition's file is renamed into place and the manifest says
 * so, prints `held PARTITION` and waits there to be killed (`kill -9`): a deterministic "halfway".
 */
import { exportParquet } from '../../src/export/export-parquet.js';

await exportParquet({
  databaseUrl: process.env.DATABASE_URL!,
  dir: process.env.EXPORT_DIR!,
  onPartitionWritten: async (entry) => {
    process.stdout.write(`held ${entry.file}\n`);
    await new Promise(() => {});
  },
});
