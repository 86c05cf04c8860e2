import type { UpstreamShapeEntry } from '../ledger/list-upstream-shapes.js';
import { describeChanges } from '../upstream/shape-changes.js';

/**
 * `envdata upstream` for people: per endpoint, each shape oldest first with its standing and
 * counts, then what changed from the shape before it, one change a line.
 */
export function formatUpstreamShapes(entries: readonly UpstreamShapeEntry[]): string[] {
  if (entries.length === 0) {
    return ['no answer shapes recorded yet: they are kept from the first answer a worker lands'];
  }
  const lines: string[] = [];
  let endpoint = '';
  for (const e of entries) {
    const here = `${e.dataset} ${e.source}`;
    if (here !== endpoint) {
      if (endpoint !== '') lines.push('');
      lines.push(`${here}:`);
      endpoint = here;
    }
    const standing = e.baseline
      ? 'baseline'
      : e.acceptedAt !== null
        ? `accepted ${e.acceptedAt.toISOString()}`
        : 'NOT ACCEPTED';
    lines.push(
      `  ${e.digest}  ${standing}  ${e.answers} answer(s), first ${e.firstSeenAt.toISOString()}, last ${e.lastSeenAt.toISOString()}  [${e.shape.envelope}; "${String(e.shape.status)}"]`,
    );
    if (e.changes) {
      const changes = describeChanges(e.changes);
      for (const change of changes.length > 0 ? changes : ['a share unit told for the first time'])
        lines.push(`      ${change}`);
    }
    if (!e.baseline && e.acceptedAt === null) {
      lines.push(`      to accept it: envdata upstream accept ${e.digest}`);
    }
  }
  return lines;
}
