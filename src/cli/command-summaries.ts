/**
 * The one line each command shows in `envdata --help`'s list (commander's `summary`), so the list
 * fits a screen; `envdata COMMAND --help` shows its whole description. Kept here, beside each
 * other, so they read as one list and stay short.
 */
export const COMMAND_SUMMARIES: Readonly<Record<string, string>> = {
  migrate: 'Create the database if missing and migrate it',
  locations: 'Register, import, list and remove locations',
  backfill: 'Fetch history for a date range (resumable)',
  plan: 'Show what `apply` would do for envdata.yaml',
  apply: 'Make the warehouse what envdata.yaml declares',
  'export-config': 'Write envdata.yaml from the warehouse as it is',
  worker: 'Fetch, normalize and land queued chunks',
  serve: 'Serve the operations console and /metrics',
  resume: 'Dispatch unfinished runs again; end a pause',
  retry: 'Re-queue the failed chunks of a run',
  cancel: 'Cancel a run; what landed stays',
  pause: 'Pause a running run until `envdata resume RUN`',
  sync: 'Bring every location up to the last complete hour',
  scheduler: 'Keep the nightly sync scheduled',
  status: 'Health, queues, runs and freshness, or one run',
  notify: 'Alerts posted to ENVDATA_NOTIFY_URL',
  lineage: 'OpenLineage events not yet delivered',
  demo: 'Run envdata end to end against its simulator',
  local: 'Start, stop or show a local PostgreSQL',
  'bi-role': 'Create or refresh a read-only role for BI tools',
  'dbt-sources': 'Print a dbt sources.yml for schema analytics',
  rebuild: 'Rebuild facts from archived payloads, no calls',
  certify: 'Sign a completeness certificate of a range',
  verify: 'Check a certificate: signature, then rows',
  export: 'The warehouse as Parquet files: write, verify, query',
  upstream: "The shapes of the service's answers, and drift",
  simulate: 'Serve the Environmental Data Service simulator',
  completion: 'Print a bash or zsh completion script',
};
