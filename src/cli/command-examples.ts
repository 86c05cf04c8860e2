/**
 * The examples at the end of a command's `--help` (commander's `addHelpText('after', …)`), by
 * command path: the commands people start with, each line one they can paste (`locations add`
 * has its own, beside its rules). Kept beside each
 * other, outside the command definitions, so they read as one set of recipes.
 */
export const COMMAND_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  backfill: [
    '# what ten years of everything would cost, without writing anything',
    'envdata backfill --dataset all --from 2016-01-01 --to 2026-01-01 --dry-run',
    '# pollen of June for one location (repeat --location for more), worked here until done',
    'envdata backfill --dataset pollen --from 2024-06-01 --to 2024-07-01 --location Berlin --wait',
    '# a whole UTC hour as a bound',
    'envdata backfill --dataset weather --from "2024-06-01 06:00:00" --to 2024-06-02',
  ],
  sync: [
    '# what a sync would fetch now',
    'envdata sync --dry-run',
    '# bring every location up to the last complete hour now, and wait for it',
    'envdata sync --now --wait',
  ],
  plan: [
    '# ./envdata.yaml against the warehouse: what apply would do',
    'envdata plan',
    '# another file, as one JSON document (for CI)',
    'envdata plan -f deploy/envdata.yaml --json',
  ],
  lineage: [
    '# the OpenLineage events the receiver has not taken yet, and why',
    'envdata lineage pending',
    '# the same as one JSON document (for monitoring)',
    'envdata lineage pending --json',
  ],
  apply: [
    '# show the plan, ask, then apply it',
    'envdata apply',
    '# in CI: no question; follow the run to the end, exit 1 if chunks fail',
    'envdata apply -f deploy/envdata.yaml -y --wait',
  ],
  'export parquet': [
    '# write what changed since the last export (everything the first time)',
    'envdata export parquet --to /data/envdata-parquet',
    '# then check every file against the warehouse (exit 1 naming the first that differs)',
    'envdata export verify --to /data/envdata-parquet',
    '# SQL over the files with DuckDB, no database needed',
    'envdata export query --to /data/envdata-parquet "SELECT count(*) FROM weather_hourly"',
  ],
};

/** The examples of `path` as help text, or `undefined` when it has none. */
export function examplesHelp(path: string): string | undefined {
  const lines = COMMAND_EXAMPLES[path];
  return lines && `\nExamples:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}
