import { createHash } from 'node:crypto';
import type { LineageHours, LineageSnapshot } from '../ledger/record-lineage.js';

/** The OpenLineage spec version envdata's events follow, and the schema of a RunEvent. */
export const OPENLINEAGE_SPEC = '2-0-2';
export const RUN_EVENT_SCHEMA_URL = `https://openlineage.io/spec/${OPENLINEAGE_SPEC}/OpenLineage.json#/$defs/RunEvent`;

/** Where envdata is published; `producer` and the custom facet's schema name it. */
export const ENVDATA_HOME = 'https://github.com/envdata/envdata';

/** The spec's facets envdata emits, each its `_schemaURL`. */
export const FACET_SCHEMA_URLS = {
  schema:
    'https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
  outputStatistics:
    'https://openlineage.io/spec/facets/1-0-2/OutputStatisticsOutputDatasetFacet.json#/$defs/OutputStatisticsOutputDatasetFacet',
  subset:
    'https://openlineage.io/spec/facets/1-0-0/BaseSubsetDatasetFacet.json#/$defs/OutputSubsetOutputDatasetFacet',
  errorMessage:
    'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet',
  jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
} as const;

/** The run facet envdata adds for what the spec's facets cannot say (docs/openlineage/). */
export function envdataRunFacetSchemaUrl(version: string): string {
  return `${ENVDATA_HOME}/blob/v${version}/docs/openlineage/envdata-run-facet.json`;
}

/** A column of an output table, as the catalog describes it. */
export interface LineageColumn {
  readonly name: string;
  readonly type: string;
  readonly description?: string | undefined;
  readonly ordinalPosition: number;
}

/** What an event is built with besides its snapshot: settings and the catalog. */
export interface LineageContext {
  /** envdata's version (package.json). */
  readonly version: string;
  /** ENVDATA_OPENLINEAGE_NAMESPACE. */
  readonly jobNamespace: string;
  /** The service, from ENVDATA_BASE_URL: its `scheme://host[:port]` and its base path. */
  readonly serviceUrl: string;
  /** DATABASE_URL (its user and password are never read out of it). */
  readonly databaseUrl: string;
  /** Per dataset, the `analytics` views of its facts (`weather_hourly`, …). */
  readonly outputTables: Readonly<Record<string, readonly string[]>>;
  /** Per `analytics` view, its columns. */
  readonly columns: Readonly<Record<string, readonly LineageColumn[]>>;
}

type Facet = { _producer: string; _schemaURL: string } & Record<string, unknown>;

/** An OpenLineage RunEvent (spec 2-0-2) as envdata writes it. */
export interface RunEvent {
  eventType: LineageSnapshot['eventType'];
  eventTime: string;
  producer: string;
  schemaURL: string;
  run: { runId: string; facets: Record<string, Facet> };
  job: { namespace: string; name: string; facets: Record<string, Facet> };
  inputs: { namespace: string; name: string }[];
  outputs: {
    namespace: string;
    name: string;
    facets: Record<string, Facet>;
    outputFacets?: Record<string, Facet>;
  }[];
}

/** What a rebuild reads: the archived answers' bodies, `<database>.envdata.answer_body`. */
export const REBUILD_INPUT = 'envdata.answer_body';

/** `scheme://host:port` and the database of DATABASE_URL: no user, no password. */
export function warehouseNamespace(databaseUrl: string): { namespace: string; database: string } {
  const url = new URL(databaseUrl);
  const port = url.port === '' ? '5432' : url.port;
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  return { namespace: `postgres://${url.hostname}:${port}`, database };
}

/**
 * The OpenLineage run id of attempt `attempt` of run `runId`: a UUID (version 5 layout, SHA-1)
 * of the warehouse, the jobs' namespace, the run and the attempt, so START and its terminal
 * event carry the same one, whichever process builds them, and two warehouses never share one.
 */
export function lineageRunId(
  warehouse: string,
  jobNamespace: string,
  runId: number,
  attempt: number,
): string {
  const bytes = createHash('sha1')
    .update(`envdata-run:${warehouse}:${jobNamespace}:${runId}:${attempt}`, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The RunEvent `snapshot` tells of, in `context`. */
export function buildRunEvent(snapshot: LineageSnapshot, context: LineageContext): RunEvent {
  const producer = `${ENVDATA_HOME}/tree/v${context.version}`;
  const facet = (schemaURL: string, fields: Record<string, unknown>): Facet => ({
    _producer: producer,
    _schemaURL: schemaURL,
    ...fields,
  });
  const { namespace, database } = warehouseNamespace(context.databaseUrl);
  const terminal = snapshot.eventType !== 'START';

  const runFacets: Record<string, Facet> = {
    envdata_run: facet(envdataRunFacetSchemaUrl(context.version), envdataRunFields(snapshot)),
  };
  const message = terminal && snapshot.eventType !== 'COMPLETE' ? errorOf(snapshot) : undefined;
  if (message !== undefined) {
    runFacets.errorMessage = facet(FACET_SCHEMA_URLS.errorMessage, {
      message,
      programmingLanguage: 'TypeScript',
    });
  }

  const service = new URL(context.serviceUrl);
  const basePath = service.pathname.replace(/\/+$/, '');
  // A rebuild reads the archive of answers in the warehouse, never the service.
  const inputs =
    snapshot.rebuildId === undefined
      ? snapshot.endpoints.map((e) => ({
          namespace: `${service.protocol}//${service.host}`,
          name: `${basePath}${e.endpoint}`,
        }))
      : [{ namespace, name: `${database}.${REBUILD_INPUT}` }];

  // Rows by table only where the ledger can tell them: a dataset with one table, and no rows
  // folded away from their dataset (a run of several datasets).
  const attributable = snapshot.foldedRows === 0 || snapshot.datasets.length === 1;
  const outputs = snapshot.datasets.flatMap((dataset) => {
    const tables = context.outputTables[dataset] ?? [];
    const ranges = snapshot.complete.filter((c) => c.dataset === dataset);
    return tables.map((table) => {
      const outputFacets: Record<string, Facet> = {};
      if (terminal && tables.length === 1 && attributable) {
        outputFacets.outputStatistics = facet(FACET_SCHEMA_URLS.outputStatistics, {
          rowCount: (snapshot.rows[dataset] ?? 0) + snapshot.foldedRows,
        });
      }
      const condition = terminal ? completeHoursCondition(ranges) : undefined;
      if (condition) {
        outputFacets.subset = facet(FACET_SCHEMA_URLS.subset, { outputCondition: condition });
      }
      const columns = context.columns[table] ?? [];
      return {
        namespace,
        name: `${database}.analytics.${table}`,
        facets: {
          schema: facet(FACET_SCHEMA_URLS.schema, {
            fields: columns.map((c) => ({
              name: c.name,
              type: c.type,
              ...(c.description && { description: c.description }),
              ordinal_position: c.ordinalPosition,
            })),
          }),
        },
        ...(Object.keys(outputFacets).length > 0 && { outputFacets }),
      };
    });
  });

  return {
    eventType: snapshot.eventType,
    eventTime: snapshot.eventTime,
    producer,
    schemaURL: RUN_EVENT_SCHEMA_URL,
    run: {
      runId:
        snapshot.rebuildId ??
        lineageRunId(
          `${namespace}/${database}`,
          context.jobNamespace,
          snapshot.runId!,
          snapshot.attempt,
        ),
      facets: runFacets,
    },
    job: {
      namespace: context.jobNamespace,
      name: `envdata.${snapshot.kind}`,
      facets: {
        jobType: facet(FACET_SCHEMA_URLS.jobType, {
          processingType: 'BATCH',
          integration: 'ENVDATA',
          jobType: 'JOB',
        }),
      },
    },
    inputs,
    outputs,
  };
}

/**
 * Why the run failed or was aborted, in one line: its error (`UNAUTHORIZED: …`), else its failed
 * chunks by code and its blocked datasets, with the command that fetches them again.
 */
function errorOf(snapshot: LineageSnapshot): string | undefined {
  const parts: string[] = [];
  if (snapshot.errorMessage !== null) {
    parts.push(
      snapshot.errorCode
        ? `${snapshot.errorCode}: ${snapshot.errorMessage}`
        : snapshot.errorMessage,
    );
  }
  const failed = Object.entries(snapshot.failedChunks);
  // A rebuild's message says which payloads were unreadable; it has no run to retry.
  if (failed.length > 0 && snapshot.runId !== null) {
    const n = failed.reduce((sum, [, count]) => sum + count, 0);
    parts.push(
      `${n} chunk(s) failed (${failed.map(([code, count]) => `${code} ×${count}`).join(', ')}): envdata retry ${snapshot.runId}`,
    );
  }
  if (snapshot.blockedDatasets.length > 0) {
    parts.push(`datasets blocked: ${snapshot.blockedDatasets.join(', ')}`);
  }
  return parts.length > 0 ? parts.join('; ') : undefined;
}

/** The fields of the `envdata_run` facet (docs/openlineage/envdata-run-facet.json). */
function envdataRunFields(snapshot: LineageSnapshot): Record<string, unknown> {
  const completeHours: Record<string, number> = {};
  for (const c of snapshot.complete) {
    completeHours[c.dataset] = (completeHours[c.dataset] ?? 0) + hoursOf(c.ranges);
  }
  return {
    runId: snapshot.runId,
    ...(snapshot.rebuildId !== undefined && { rebuildId: snapshot.rebuildId }),
    attempt: snapshot.attempt,
    kind: snapshot.kind,
    status: snapshot.status,
    errorCode: snapshot.errorCode,
    datasets: snapshot.datasets,
    ...(snapshot.eventType !== 'START' && {
      failedChunks: snapshot.failedChunks,
      rowsLanded: snapshot.rows,
      ...(snapshot.rowsChanged && { rowsChanged: snapshot.rowsChanged }),
      rowsFolded: snapshot.foldedRows,
      completeHours,
    }),
  };
}

function hoursOf(ranges: readonly LineageHours[]): number {
  return ranges.reduce((n, r) => n + (Date.parse(r.to) - Date.parse(r.from)) / 3_600_000, 0);
}

type Condition = Record<string, unknown>;

const field = (name: string) => ({ type: 'field', field: name });
const literal = (value: string) => ({ type: 'literal', value });
const compare = (name: string, comparison: string, value: string): Condition => ({
  type: 'compare',
  left: field(name),
  right: literal(value),
  comparison,
});
const binary = (operator: 'AND' | 'OR', left: Condition, right: Condition): Condition => ({
  type: 'binary',
  left,
  right,
  operator,
});

/**
 * The hours made complete, as the subset facet's condition: per location and range,
 * `location_id = L AND observed_at >= from AND observed_at < to`, all of them OR-ed (a balanced
 * tree, so a run of many ranges stays shallow). `undefined` when there are none.
 */
export function completeHoursCondition(
  complete: LineageSnapshot['complete'],
): Condition | undefined {
  const terms = complete.flatMap((c) =>
    c.ranges.map((r) =>
      binary(
        'AND',
        compare('location_id', 'EQUAL', String(c.locationId)),
        binary(
          'AND',
          compare('observed_at', 'GREATER_EQUAL_THAN', r.from),
          compare('observed_at', 'LESS_THAN', r.to),
        ),
      ),
    ),
  );
  const join = (items: Condition[]): Condition | undefined => {
    if (items.length <= 1) return items[0];
    const mid = Math.ceil(items.length / 2);
    return binary('OR', join(items.slice(0, mid))!, join(items.slice(mid))!);
  };
  return join(terms);
}
