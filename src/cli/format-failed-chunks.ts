import type { FailedChunkGroup } from '../ledger/failed-chunk-groups.js';

const hour = (d: Date) => d.toISOString().slice(0, 16).replace('T', ' ');

/** Failed chunks by error code and message, with a count and the first few, for `status RUN`. */
export function formatFailedChunks(groups: readonly FailedChunkGroup[], runId: number): string {
  if (groups.length === 0) return '';
  const lines = ['failed chunks:'];
  for (const g of groups) {
    lines.push(`  ${g.code} × ${g.chunks}: ${g.message}`);
    for (const c of g.examples) {
      lines.push(
        `    ${c.location} ${c.dataset} ${hour(c.from)}–${hour(c.to)} UTC (chunk ${c.chunkId}, ${c.attempts} attempt(s))` +
          (c.traceId ? ` trace ${c.traceId}` : ''),
      );
    }
    if (g.chunks > g.examples.length) lines.push(`    … and ${g.chunks - g.examples.length} more`);
  }
  lines.push(`re-queue them with \`envdata retry ${runId}\` once the cause is fixed`);
  return lines.join('\n');
}
