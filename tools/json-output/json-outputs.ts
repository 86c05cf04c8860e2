import type { z } from 'zod';
import { backfillPlanJson } from '../../src/cli/json/backfill-plan-json.js';
import {
  BACKFILL_PLAN_EXAMPLE,
  DECLARED_PLAN_EXAMPLE,
  LINEAGE_PENDING_EXAMPLE,
  LOCATIONS_EXAMPLE,
  NOTIFICATION_EXAMPLE,
  RUN_STATUS_EXAMPLE,
  STATUS_EXAMPLE,
  SYNC_PLAN_EXAMPLE,
  UPSTREAM_EXAMPLE,
  EXPORT_EXAMPLE,
  EXPORT_VERIFY_EXAMPLE,
} from './json-output-examples.js';
import { declaredPlanJson } from '../../src/cli/json/declared-plan-json.js';
import { lineagePendingJson } from '../../src/cli/json/lineage-pending-json.js';
import { locationsJson } from '../../src/cli/json/locations-json.js';
import { notificationJson } from '../../src/notify/notification-document.js';
import { runStatusJson } from '../../src/cli/json/run-status-json.js';
import { statusJson } from '../../src/cli/json/status-json.js';
import { syncPlanJson } from '../../src/cli/json/sync-plan-json.js';
import { upstreamJson } from '../../src/cli/json/upstream-json.js';
import { exportJson, exportVerifyJson } from '../../src/cli/json/export-json.js';

/** One command's `--json` document: its schema, where it is documented, and an example. */
export interface JsonOutput {
  /** The command line that prints it: `envdata status --json`. */
  readonly command: string;
  /** The document's `kind`, also the name of its JSON Schema file (`docs/json-schemas/KIND.schema.json`). */
  readonly kind: string;
  /** When the command prints it and what it is for, in Markdown. */
  readonly about: string;
  readonly schema: z.ZodType;
  readonly example: unknown;
}

/** Checks at compile time that `example` has the type of `schema`. */
function jsonOutput<S extends z.ZodType>(
  output: Omit<JsonOutput, 'schema' | 'example'> & { schema: S; example: z.infer<S> },
): JsonOutput {
  return output;
}

/** Every `--json` document envdata prints, in the order docs/json-output.md lists them. */
export const JSON_OUTPUTS: readonly JsonOutput[] = [
  jsonOutput({
    command: 'envdata status --json',
    kind: 'status',
    about:
      'The health of Postgres and of the queue, the 10 most recent runs and the freshness of every active location. Exit code as without `--json`: 1 when Postgres or the queue is down (the document is still printed, with `ok: false` and the `problem`), or with `--check` when a migration is pending or a location is stale (the reasons go to standard error).',
    schema: statusJson,
    example: STATUS_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata status RUN --json',
    kind: 'run-status',
    about:
      'One run: its figures and its failed chunks grouped by error code and message. A run that does not exist exits 2 with a message on standard error and nothing on standard output.',
    schema: runStatusJson,
    example: RUN_STATUS_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata locations list --json',
    kind: 'locations',
    about: 'Every registered location, retired ones included (with `retiredAt`), by id.',
    schema: locationsJson,
    example: LOCATIONS_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata backfill … --dry-run --json',
    kind: 'backfill-plan',
    about:
      'What `envdata backfill` with the same flags would plan now — the range minus what the ledger holds — without writing anything: the chunks a run would create, the calls, the rows and the time at the rate limits. `--json` without `--dry-run` exits 2: a backfill that runs prints progress for people; follow it with `envdata status RUN --json`.',
    schema: backfillPlanJson,
    example: BACKFILL_PLAN_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata plan --json',
    kind: 'declared-plan',
    about:
      'What `envdata apply` would do to make the warehouse match `envdata.yaml` (docs/envdata.md): the locations it adds, retires and restores, then per dataset the history missing between `since` and the last complete hour, as the one backfill run it starts, with its calls, duration, cost and days under the quota. Nothing is written; the service is called only to geocode places not registered yet. A bad file exits 2 with every problem on standard error and nothing on standard output.',
    schema: declaredPlanJson,
    example: DECLARED_PLAN_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata sync --dry-run --json',
    kind: 'sync-plan',
    about:
      'What `envdata sync --now` would fetch now, without writing anything: the history of every active location (lookback included, at most the horizon back), the latest readings and forecasts, and the older history left to backfill. `--json` without `--dry-run` exits 2, as for backfill.',
    schema: syncPlanJson,
    example: SYNC_PLAN_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata upstream --json',
    kind: 'upstream',
    about:
      'Every shape the service’s answers have had, per endpoint (dataset and source), oldest first, each with what changed from the one before it: keys added, keys gone, types or share units changed, the envelope or its status text (docs/drift.md). `--dataset` keeps one dataset.',
    schema: upstreamJson,
    example: UPSTREAM_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata lineage pending --json',
    kind: 'lineage-pending',
    about:
      'The OpenLineage events not yet taken by the receiver of ENVDATA_OPENLINEAGE_URL (docs/observability.md), oldest first (at most 100; `total` counts them all), each with its run, attempt, event type, the posts tried and the last error (never the URL or the key). A lineage event never expires: it waits for the receiver.',
    schema: lineagePendingJson,
    example: LINEAGE_PENDING_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata export parquet --json',
    kind: 'export',
    about:
      'What an export wrote (docs/export.md): the partitions written and removed, rows and bytes, and its position in the ledger (the warehouse snapshot). Exit 1 with a message on standard error and nothing on standard output when another export is running.',
    schema: exportJson,
    example: EXPORT_EXAMPLE,
  }),
  jsonOutput({
    command: 'envdata export verify --json',
    kind: 'export-verify',
    about:
      'Every partition’s count and digest from its file (DuckDB) against the manifest and the warehouse (docs/export.md). Exit 1 when `ok` is false; the document is printed either way.',
    schema: exportVerifyJson,
    example: EXPORT_VERIFY_EXAMPLE,
  }),
  jsonOutput({
    command: 'ENVDATA_NOTIFY_FORMAT=json (the body of each alert POSTed to ENVDATA_NOTIFY_URL)',
    kind: 'notification',
    about:
      'One alert: a state transition a person should hear of (docs/alerts.md). Posted by the worker, scheduler or serve process that claims it, once per transition; retried until a 2xx answer, so a receiver may see one again after a timeout: `id` tells. `envdata notify test` posts one with `event: "test"`.',
    schema: notificationJson,
    example: NOTIFICATION_EXAMPLE,
  }),
];
