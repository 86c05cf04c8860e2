import type { RunProgress } from '../ledger/run-progress.js';

/**
 * The revisions line of `envdata status RUN`, or `undefined` when the run re-read and revised
 * nothing: `  revised: weather 3 of 48 re-read hour(s) (6.3 %), pollen 0 of 48 re-read hour(s)
 * (old values in analytics.weather_hourly_revisions, …)`.
 */
export function formatRunRevisions(p: RunProgress): string | undefined {
  const shown = p.revisions.filter((r) => r.rereadHours > 0 || r.revisedHours > 0);
  if (shown.length === 0) return undefined;
  const parts = shown.map((r) => {
    const share =
      r.rereadHours > 0 && r.revisedHours > 0
        ? ` (${((r.revisedHours / r.rereadHours) * 100).toFixed(1)} %)`
        : '';
    return `${r.dataset} ${r.revisedHours} of ${r.rereadHours} re-read hour(s)${share}`;
  });
  const where = shown.some((r) => r.revisedHours > 0)
    ? ' (old values in analytics.weather_hourly_revisions, analytics.pollen_hourly_revisions and analytics.pollen_species_hourly_revisions, replaced_by_run)'
    : '';
  return `  revised: ${parts.join(', ')}${where}`;
}
