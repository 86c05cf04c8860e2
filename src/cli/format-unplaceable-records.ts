import type { RunProgress } from '../ledger/run-progress.js';
import type { UnplaceableRecord } from '../ledger/unplaceable-records.js';

/** The records a run could place in no hour, the first few with their reason, for `status RUN`. */
export function formatUnplaceableRecords(
  records: readonly UnplaceableRecord[],
  run: RunProgress,
): string {
  const lines = ['records sent without a readable hour (in envdata.quarantine, observed_at null):'];
  for (const r of records) {
    lines.push(
      `  ${r.location ?? `location ${r.locationId ?? '?'}`} ${r.source} record ${r.recordIndex}` +
        `${r.chunkId === null ? '' : ` (chunk ${r.chunkId})`}: ${r.reason}`,
    );
  }
  const more = run.unplaceableRecords - records.length;
  if (more > 0) lines.push(`  … and ${more} more`);
  return lines.join('\n');
}
