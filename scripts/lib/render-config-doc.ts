import type { EnvironmentVariable } from '../../src/config/environment-variables.js';
import { ENVIRONMENT_VARIABLES } from '../../src/config/environment-variables.js';
import { formatRange } from '../../src/config/format-range.js';
import { ENV_EXAMPLE_SECTIONS } from '../../src/cli/env-example-sections.js';

/** docs/configuration.md, which `CONFIG_DOC_COMMAND` writes from `renderConfigDoc`. */
export const CONFIG_DOC = new URL('../../docs/configuration.md', import.meta.url);

/** What rewrites docs/configuration.md from the environment table. */
export const CONFIG_DOC_COMMAND = '`npm run docs:config`';

/**
 * Where a variable is told at length, and what only this page says of it: a link to the topic
 * page, shown in the "more" column. The meaning itself comes from the environment table.
 */
const MORE: Readonly<Record<string, string>> = {
  DATABASE_PREPARED_STATEMENTS: '[the writer’s side](warehouse-writes.md)',
  REDIS_URL: '[services](services.md)',
  REDIS_CLUSTER_NODES: '[redis-cluster.md](redis-cluster.md)',
  ENVDATA_QUEUE_BACKEND: '[queue backends](queue-backends.md)',
  ENVDATA_BASE_URL: '[simulator](simulator.md)',
  ENVDATA_API_KEY: 'nor stored',
  ENVDATA_CONSOLE_TOKEN: '[console](console.md#operations-console)',
  ENVDATA_CONSOLE_HOSTS: '[console](console.md)',
  ENVDATA_RATE_LIMIT:
    'windows of 100 ms to 31 days; beside `ENVDATA_QUOTA`, day-long rules are refused (exit 2); [backfills](backfills.md)',
  ENVDATA_QUOTA: '[quota and cost](quota-and-cost.md)',
  ENVDATA_QUOTA_TIMEZONE: '[quota and cost](quota-and-cost.md)',
  ENVDATA_SYNC_RESERVE:
    'a reserve that keeps the whole day is refused; [quota and cost](quota-and-cost.md#quota-and-cost)',
  ENVDATA_PRICE_PER_CALL: '[quota and cost](quota-and-cost.md)',
  ENVDATA_BUDGET: 'the month is the only window; [quota and cost](quota-and-cost.md)',
  ENVDATA_MAX_PAUSE: 'also the longest wait a 5xx’s `Retry-After` gets; [backfills](backfills.md)',
  ENVDATA_WORKER_HEARTBEAT: '[commands](commands.md)',
  ENVDATA_HISTORY_WINDOW:
    '`auto` doubles up to 31 days, never beyond a refused range, a few probes per run, kept in `envdata.history_window` by a fingerprint of the key, never the key; `backfill --window auto` asks for it per run; `backfill --dry-run` shows the calls at the learned window and at 48 h ([architecture](architecture.md#the-learned-history-window))',
  ENVDATA_REFETCH_ATTEMPTS: '[backfills](backfills.md)',
  ENVDATA_NO_DATA_RECHECK: 'each range on the clock of its own answer; [backfills](backfills.md)',
  ENVDATA_CHUNK_RETENTION: '[backfills](backfills.md)',
  ENVDATA_SYNC_CRON: '[sync](sync.md)',
  ENVDATA_EXPORT_DIR: '[export](export.md)',
  ENVDATA_EXPORT_CRON:
    'needs ENVDATA_EXPORT_DIR; one export at a time per warehouse, whatever the schedulers; [export](export.md)',
  ENVDATA_SYNC_LOOKBACK: '[sync](sync.md)',
  ENVDATA_SYNC_HORIZON: '[sync](sync.md)',
  ENVDATA_SNAPSHOT_RETENTION: '[scaling](scaling.md)',
  ENVDATA_DRIFT_POLICY: '[drift](drift.md)',
  ENVDATA_FRESHNESS_MAX_LAG: '[sync](sync.md)',
  ENVDATA_SHUTDOWN_TIMEOUT_MS: 'then their calls are aborted; [backfills](backfills.md)',
  ENVDATA_IMPORT_MAX_ROWS: '[locations](locations.md)',
  LOG_LEVEL: 'or `silent`',
  NO_COLOR: 'colours are used only on a terminal anyway',
  ENVDATA_LOCAL_DIR: '[local PostgreSQL](local-postgresql.md)',
};

/** A markdown table cell: no newline, no unescaped pipe. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function code(value: string): string {
  return value.includes('`') ? `\`\` ${value} \`\`` : `\`${value}\``;
}

function table(variables: readonly EnvironmentVariable[]): string[] {
  const rows = ['| variable | default | allowed | meaning | more |', '|---|---|---|---|---|'];
  for (const v of variables) {
    const fallback = v.default === undefined ? '—' : code(v.default);
    const range = v.range === undefined ? '' : formatRange(v.range);
    rows.push(
      `| \`${v.name}\` | ${cell(fallback)} | ${cell(range)} | ${cell(v.description)} | ${cell(MORE[v.name] ?? '')} |`,
    );
  }
  return rows;
}

/**
 * docs/configuration.md: every environment variable envdata reads, by section, with its default,
 * its range and its meaning, from the same table as `.env.example` and `envdata help environment`.
 */
export function renderConfigDoc(): string {
  const sections = [
    { title: 'envdata', variables: ENVIRONMENT_VARIABLES },
    ...ENV_EXAMPLE_SECTIONS,
  ];
  const out = [
    '# Configuration reference',
    '',
    `<!-- Generated from src/config/environment-variables.ts and src/cli/env-example-sections.ts by ${CONFIG_DOC_COMMAND.replace(/`/g, '')}; test/docs/config-doc.test.ts keeps it current. Do not edit by hand. -->`,
    '',
    'envdata reads its configuration from environment variables only, validates all of them at',
    'start and lists every problem at once, with the values allowed (a number out of range, a cron',
    'pattern BullMQ’s parser refuses: exit 2). `.env.example` documents each one with its range;',
    '`npx envdata help environment` prints them too. This page, `.env.example` and that help are',
    'made from one table, `src/config/environment-variables.ts`.',
  ];
  for (const section of sections) {
    out.push('', `## ${section.title}`, '', ...table(section.variables));
  }
  return `${out.join('\n')}\n`;
}
