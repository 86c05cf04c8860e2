import type { ExportStatus } from '../export/export-status.js';
import { formatDuration } from '../planner/estimate-plan.js';

/**
 * `envdata status`'s line of the Parquet export: `export: last finished 3 h ago to
 * /data/parquet (12 partitions, 1204 rows written); 2 partitions changed since, the oldest
 * change 2 h ago` — or `…; nothing changed since`.
 */
export function formatLastExport(status: ExportStatus, now: Date): string {
  const ago = (at: Date) => `${formatDuration(Math.max(0, +now - +at))} ago`;
  return (
    `export: last finished ${ago(status.finishedAt)} to ${status.target} (${status.partitionsWritten} partition(s), ${status.rowsWritten} rows written); ` +
    (status.partitionsBehind === 0
      ? 'nothing changed since'
      : `${status.partitionsBehind} partition(s) changed since, the oldest change ${ago(status.oldestChangeAt!)}: \`envdata export parquet\` writes them`)
  );
}
