/**
 * The metric names envdata serves at `/metrics` (the metric contract of issue 14): the names
 * dashboards may query, beside prom-client's default process metrics and Prometheus's own `up`.
 * Histograms show as their `_bucket`, `_sum` and `_count` series.
 */
export const CONTRACT_METRICS = {
  envdata_api_calls_total: 'counter',
  envdata_rows_landed_total: 'counter',
  envdata_records_quarantined_total: 'counter',
  envdata_chunk_duration_seconds: 'histogram',
  envdata_chunks: 'gauge',
  envdata_queue_jobs: 'gauge',
  envdata_workers_alive: 'gauge',
  envdata_rate_limit_waits_total: 'counter',
  envdata_notifications_total: 'counter',
  envdata_upstream_answers_total: 'counter',
  envdata_freshness_lag_seconds: 'gauge',
  envdata_locations_stale: 'gauge',
  envdata_quota_used_calls: 'gauge',
  envdata_quota_limit_calls: 'gauge',
  envdata_export_lag_seconds: 'gauge',
} as const;

/** Whether a dashboard may query `name`: a contract series, a default process metric, or `up`. */
export function isKnownMetric(name: string): boolean {
  if (name === 'up') return true;
  // prom-client's collectDefaultMetrics: process_* and nodejs_* series.
  if (/^(process|nodejs)_[a-z0-9_]+$/.test(name)) return true;
  for (const [metric, type] of Object.entries(CONTRACT_METRICS)) {
    if (name === metric && type !== 'histogram') return true;
    if (type === 'histogram' && ['_bucket', '_sum', '_count'].some((s) => name === metric + s)) {
      return true;
    }
  }
  return false;
}
