import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Kysely, QueryResult, RawBuilder, Transaction } from 'kysely';
import { hasSqlState, isUniqueViolation, SQLSTATE } from '../errors/pg-errors.js';
import type { Dataset, Window } from '../types.js';
import { formatHourRanges, hourRanges, hoursOf } from '../windows/hour-ranges.js';
import {
  dirtyDaysStatement,
  landingStatements,
  openLanding,
  recordLandings,
  withNewRows,
  type ArchivedPayload,
  type LandingRecord,
  type LandingState,
} from '../ledger/record-landings.js';
import type { FactRow } from '../warehouse/fact-rows.js';
import type { FactTable, LandingFacts, WriteContext } from '../warehouse/fact-table.js';
import type { ChunkOutcome, Database } from '../warehouse/schema.js';
import type { MetricsObserver } from '../metrics/metrics-observer.js';
import { SpeciesIds } from '../warehouse/species-ids.js';
import {
  changedGroups,
  factDigests,
  newFactsStatement,
  probeStatement,
  RowsStoredAlready,
  rowCount,
  upsertStatement,
  type ProbedGroup,
} from '../warehouse/upsert-facts.js';
import type { LocatedRows, StagedRows } from '../warehouse/located-rows.js';
import type { FactTableSpec } from '../warehouse/fact-table-spec.js';
import { YearPartitions } from '../warehouse/year-partitions.js';

interface LandingBase {
  readonly chunkId: number;
  /** The run the chunk belongs to (`null` for a rebuild from the archive). */
  readonly runId: number | null;
  readonly locationId: number;
  readonly window: Window;
  /** `no_data` / `not_covered` land zero rows and still mark the chunk done. */
  readonly outcome: ChunkOutcome;
  /**
   * `false` for a trimmed (206, PARTIAL) payload: its rows land, but the chunk is not marked
   * done and will be fetched again.
   */
  readonly complete: boolean;
  /**
   * The hours the answer should hold: the window clipped to the dataset's history and to the
   * last complete hour when it was fetched. Hours of it that neither landed nor were
   * quarantined are missing.
   */
  readonly expected: Window | undefined;
  /**
   * The re-fetch policy still allows another call for this chunk: missing or quarantined hours
   * then make it wait again instead of being recorded as holes.
   */
  readonly refetchAllowed: boolean;
  /** A re-landing from the archive: adds what landed, changes no chunk and no hole. */
  readonly rebuild?: boolean;
  /** API calls made for this landing (0 for a rebuild from the archive). */
  readonly calls: number;
  readonly attempts: number;
  readonly startedAt: Date;
  readonly httpStatus: number;
}

/**
 * What one chunk brings to the warehouse: rows, already normalized by the job (the warehouse
 * knows no payload and no dataset's rules), and the body they came from, for the archive.
 */
export interface ChunkLanding extends LandingBase {
  readonly dataset: Dataset;
  /** The answer's fact rows by table, its quarantined records and counts (`NO_FACTS`: none). */
  readonly facts: LandingFacts;
  /** The body exactly as received; `undefined` when the answer had none to keep. */
  readonly rawBody: string | undefined;
}

/** A body as the archive keeps it, made before the landing transaction (`FactWriter.stage`). */
export interface ArchiveBody {
  /** SHA-256 of the body as received. */
  readonly digest: Buffer;
  readonly gzipped: Buffer;
  readonly bodyBytes: number;
}

/**
 * A landing ready for its transaction (`FactWriter.stage`): what the ledger will record of it,
 * its rows encoded as their tables send them, and its body, when the archive keeps bodies,
 * digested and compressed (`undefined` otherwise).
 */
export interface StagedLanding extends ChunkLanding {
  readonly archiveBody: ArchiveBody | undefined;
  readonly ledger: { readonly record: LandingRecord; readonly result: LandingResult };
  /** By table of `facts.tables`, in its order: the rows staged, if the table does. */
  readonly encoded: readonly (StagedRows | undefined)[];
}

export interface LandingResult {
  readonly chunkId: number;
  /** What the ledger made of it (`done`, `refetch`, `partial`, `rebuild`). */
  readonly state: LandingState;
  /** Fact rows the answer normalized to. */
  readonly rows: number;
  readonly quarantined: number;
  readonly outsideWindow: number;
  readonly duplicateHours: number;
  readonly conflictHours: number;
  /** Hours expected but not sent (before the re-fetch policy decides). */
  readonly missingHours: number;
  /** Hours whose records were quarantined. */
  readonly quarantinedHours: number;
}

export interface LandingSummary {
  readonly results: readonly LandingResult[];
  /** Fact rows inserted or changed; 0 when identical rows were landed again. */
  readonly rowsWritten: number;
}

export interface FactWriterOptions {
  /** Keep each chunk's raw payload, gzip-compressed (ENVDATA_ARCHIVE_RAW). */
  readonly archiveRaw: boolean;
  /**
   * Told, once per dataset of each committed batch, the fact rows it inserted or changed and
   * the records it quarantined. Re-landings from the archive (`rebuild`) are not reported.
   */
  readonly observer?: Pick<MetricsObserver, 'landed'>;
}

/** A batch's rows of one fact table, one group per landing. */
type TableBatch = Map<FactTable<FactRow>, LocatedRows<FactRow>[]>;

/**
 * Lands batches of chunks, facts and ledger in ONE transaction, so a chunk is fully landed and
 * recorded or not at all (docs/architecture.md, "Landing a chunk").
 */
export class FactWriter {
  private readonly context: WriteContext = { species: new SpeciesIds() };
  private readonly partitions = new YearPartitions();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: FactWriterOptions,
  ) {}

  /**
   * Does, as each landing arrives, what needs no transaction (ledger record, encoded rows,
   * archive body), so none of it lengthens a landing transaction; `land` stages what was not.
   */
  async stage(landing: ChunkLanding): Promise<StagedLanding> {
    if ('ledger' in landing) return landing as StagedLanding;
    let rows = 0;
    const rowsByHour = new Map<number, number>();
    const encoded = landing.facts.tables.map(({ table, rows: tableRows }) => {
      rows += tableRows.length;
      for (const r of tableRows) {
        const hour = r.observedAt.getTime();
        rowsByHour.set(hour, (rowsByHour.get(hour) ?? 0) + 1);
      }
      return table.encode?.(landing.locationId, tableRows);
    });
    const staged = { ...landing, ledger: toLedger(landing, rows, rowsByHour), encoded };
    const { rawBody } = landing;
    if (!this.options.archiveRaw || rawBody === undefined || landing.rebuild) {
      return { ...staged, archiveBody: undefined };
    }
    const digest = createHash('sha256').update(rawBody).digest();
    const gzipped = await gzipAsync(rawBody);
    return { ...staged, archiveBody: { digest, gzipped, bodyBytes: Buffer.byteLength(rawBody) } };
  }

  async land(unstaged: readonly ChunkLanding[]): Promise<LandingSummary> {
    if (unstaged.length === 0) return { results: [], rowsWritten: 0 };
    const landings = await Promise.all(unstaged.map((l) => this.stage(l)));
    const batch: TableBatch = new Map();
    /** The dataset of each table of the batch, and what its landings bring, for the observer. */
    const datasetOf = new Map<FactTable<FactRow>, Dataset>();
    const results: LandingResult[] = [];
    const records: LandingRecord[] = [];
    const bodies = bodiesToArchive(landings);
    for (const landing of landings) {
      landing.facts.tables.forEach(({ table, rows }, t) => {
        if (!landing.rebuild) datasetOf.set(table, landing.dataset);
        let groups = batch.get(table);
        if (!groups) batch.set(table, (groups = []));
        groups.push({ locationId: landing.locationId, rows, staged: landing.encoded[t] });
      });
      records.push(landing.ledger.record);
      results.push(landing.ledger.result);
    }
    await this.prepare(batch);

    const inTransaction = (assumeNewAllowed: boolean) =>
      this.db.transaction().execute(async (trx) => {
        const opened = await openLanding(trx, records, [...bodies.keys()]);
        const hint = { assumeNew: assumeNewAllowed && !opened.anyLanded };
        const archives = archivesOf(bodies, opened.digests);
        const ledger = records.map((r, i) =>
          withArchive(withNewRows(r, opened.landedBefore.get(i)), archives.get(i)),
        );
        const specs = tableSpecs(batch, this.context);
        if (specs) {
          const open: OpenBatch = { trx, specs, ledger, settled: opened.settled };
          return hint.assumeNew ? this.landNew(open) : this.landProbed(open);
        }
        const byTable = new Map<FactTable<FactRow>, number>();
        for (const [table, groups] of batch) {
          byTable.set(table, await table.write(trx, groups, this.context, hint));
        }
        const factsChanged = [...byTable.values()].some((n) => n > 0);
        await recordLandings(trx, ledger, { factsChanged, settled: opened.settled });
        return byTable;
      });
    // Rows the ledger did not know of were stored after all (a concurrent landing of the same
    // chunks, say): the plain insert aborted the transaction; this time the rows are probed.
    const written = await inTransaction(true).catch((error: unknown) => {
      if (error instanceof RowsStoredAlready) return inTransaction(false);
      throw error;
    });
    const { observer } = this.options;
    if (observer) {
      const tally = new Map<Dataset, { rows: number; quarantined: number }>();
      for (const landing of landings) {
        if (landing.rebuild) continue;
        const t = tally.get(landing.dataset) ?? { rows: 0, quarantined: 0 };
        t.quarantined += landing.facts.quarantined.length;
        tally.set(landing.dataset, t);
      }
      for (const [table, n] of written) {
        const dataset = datasetOf.get(table);
        if (dataset !== undefined) tally.get(dataset)!.rows += n;
      }
      for (const [dataset, t] of tally) observer.landed(dataset, t.rows, t.quarantined);
    }
    let rowsWritten = 0;
    for (const n of written.values()) rowsWritten += n;
    return { results, rowsWritten };
  }

  /**
   * A batch of hours the ledger never saw: facts and ledger in one exchange, since the facts
   * change exactly when rows came; rows stored after all throw `RowsStoredAlready`.
   */
  private landNew({ trx, specs, ledger, settled }: OpenBatch): Promise<Written> {
    return onConnection(trx, async (send) => {
      const facts = settle(specs.map((s) => send(newFactsStatement(s.spec, s.groups))));
      const factsChanged = ledger.some((r) => r.rows > 0);
      const recorded = settle(landingStatements(ledger, { factsChanged, settled }).map(send));
      throwFirstFailure(await facts, await recorded, (k) => specs[k]?.spec.table);
      return new Map(specs.map((s) => [s.table, rowCount(s.groups)]));
    });
  }

  /**
   * A batch some of whose hours landed before, in two exchanges: the probes (and a settled
   * batch's log), then the upserts of the groups not stored as they are, and the ledger.
   */
  private landProbed({ trx, specs, ledger, settled }: OpenBatch): Promise<Written> {
    return onConnection(trx, async (send) => {
      const probes = settle(specs.map((s) => send(probeStatement(s.spec, s.groups))));
      const log = settle(
        settled ? landingStatements(ledger, { factsChanged: false, settled }).map(send) : [],
      );
      const digests = specs.map((s) => factDigests(s.spec, s.groups));
      const probed = await probes;
      throwFirstFailure(probed, await log, () => undefined);
      const changed = specs.map((s, k) =>
        changedGroups(
          s.groups,
          (probed[k] as PromiseFulfilledResult<QueryResult<ProbedGroup>>).value.rows,
          digests[k]!,
        ),
      );
      const factsChanged = changed.some((c) => c.length > 0);
      const upserts = settle(
        specs.map((s, k) =>
          changed[k]!.length > 0 ? send(upsertStatement(s.spec, changed[k]!)) : undefined,
        ),
      );
      const rest = settled
        ? factsChanged
          ? [dirtyDaysStatement(ledger)]
          : []
        : landingStatements(ledger, { factsChanged, settled });
      const recorded = settle(rest.map(send));
      const written = await upserts;
      throwFirstFailure(written, await recorded, () => undefined);
      return new Map(
        specs.map((s, k) => {
          const w = written[k] as PromiseFulfilledResult<QueryResult<unknown> | undefined>;
          return [s.table, Number(w.value?.numAffectedRows ?? 0n)];
        }),
      );
    });
  }

  /**
   * Partitions, then what each table needs first (species ids), outside the landing transaction
   * (short locks, no rollback).
   */
  private async prepare(batch: TableBatch): Promise<void> {
    for (const [table, groups] of batch) {
      // One instant per UTC year is all the partitions need; not one per row.
      const years = new Map<number, Date>();
      for (const { rows } of groups) addYears(years, rows);
      await this.partitions.ensure(this.db, table.name, years.values());
    }
    for (const [table, groups] of batch) {
      if (!table.prepare) continue;
      const rows = groups.flatMap((g) => g.rows);
      await table.prepare(this.db, rows, this.context);
    }
  }
}

/** Rows written by table. */
type Written = Map<FactTable<FactRow>, number>;

/** A batch in its open transaction: its tables, what the ledger records, whether it is settled. */
interface OpenBatch {
  readonly trx: Transaction<Database>;
  readonly specs: readonly TableSpec[];
  readonly ledger: readonly LandingRecord[];
  readonly settled: boolean;
}

/** A fact table of the batch with its rows and, written by `upsertFacts`, its columns. */
interface TableSpec {
  readonly table: FactTable<FactRow>;
  readonly groups: readonly LocatedRows<FactRow>[];
  readonly spec: FactTableSpec<FactRow>;
}

/** The batch's tables with their specs, or `undefined` if one writes itself (`FactTable.write`). */
function tableSpecs(batch: TableBatch, context: WriteContext): TableSpec[] | undefined {
  const specs: TableSpec[] = [];
  for (const [table, groups] of batch) {
    if (!table.spec) return undefined;
    // The table reads its own rows: the batch groups them by table.
    specs.push({ table, groups, spec: table.spec(context) as FactTableSpec<FactRow> });
  }
  return specs;
}

type Send = (statement: RawBuilder<unknown>) => Promise<QueryResult<unknown>>;

/**
 * Runs `use` with the transaction's connection to itself: what it sends goes out at once, in
 * line (the pool pipelines a connection's queued queries), rather than each statement after
 * the answer to the one before, as Kysely sends a transaction's statements.
 */
function onConnection<T>(trx: Transaction<Database>, use: (send: Send) => Promise<T>): Promise<T> {
  return trx
    .getExecutor()
    .provideConnection((connection) =>
      use((statement) => connection.executeQuery(statement.compile(trx))),
    );
}

/** Every promise's outcome, a handler attached at once (`undefined`: nothing sent). */
function settle<T>(
  promises: readonly (Promise<T> | undefined)[],
): Promise<PromiseSettledResult<T | undefined>[]> {
  return Promise.allSettled(promises.map((p) => p ?? Promise.resolve(undefined)));
}

/**
 * Throws the first failure of statements sent in line (`facts`, then `rest`): statements behind
 * a failure fail "in a failed transaction", so the first other failure is the cause. A unique
 * violation of a fact statement (`factTable(k)` names its table) is `RowsStoredAlready`.
 */
function throwFirstFailure(
  facts: readonly PromiseSettledResult<unknown>[],
  rest: readonly PromiseSettledResult<unknown>[],
  factTable: (k: number) => string | undefined,
): void {
  const failures = [...facts, ...rest].flatMap((o, k) =>
    o.status === 'rejected' ? [{ k, error: o.reason as unknown }] : [],
  );
  const first =
    failures.find((f) => !hasSqlState(f.error, SQLSTATE.inFailedSqlTransaction)) ?? failures[0];
  if (!first) return;
  const table = first.k < facts.length ? factTable(first.k) : undefined;
  if (table && isUniqueViolation(first.error)) throw new RowsStoredAlready(table, first.error);
  throw first.error;
}

function addYears(years: Map<number, Date>, rows: readonly { observedAt: Date }[]): void {
  let last = Number.NaN;
  for (const { observedAt } of rows) {
    const year = observedAt.getUTCFullYear();
    if (year === last) continue;
    last = year;
    if (!years.has(year)) years.set(year, observedAt);
  }
}

const gzipAsync = promisify(gzip);

/** A body to archive: the landing it came with and that landing's index. */
interface Body {
  readonly landing: StagedLanding;
  readonly index: number;
}

/** The bodies to archive by chunk: one per chunk, the last if a chunk came twice in a batch. */
function bodiesToArchive(landings: readonly StagedLanding[]): Map<number, Body> {
  const bodies = new Map<number, Body>();
  landings.forEach((landing, index) => {
    if (landing.archiveBody !== undefined) bodies.set(landing.chunkId, { landing, index });
  });
  return bodies;
}

/**
 * The archive entries by landing index; a body the archive holds already (same SHA-256) goes
 * without its bytes.
 */
function archivesOf(
  bodies: ReadonlyMap<number, Body>,
  stored: ReadonlyMap<number, Buffer>,
): ReadonlyMap<number, ArchivedPayload> {
  const entries = new Map<number, ArchivedPayload>();
  for (const [chunkId, { landing, index }] of bodies) {
    const { digest, gzipped, bodyBytes } = landing.archiveBody!;
    const same = stored.get(chunkId)?.equals(digest) ?? false;
    entries.set(index, {
      fetchedAt: landing.startedAt,
      httpStatus: landing.httpStatus,
      digest,
      body: same ? undefined : gzipped,
      bodyBytes,
    });
  }
  return entries;
}

function withArchive(record: LandingRecord, archive: ArchivedPayload | undefined): LandingRecord {
  return archive ? { ...record, archive } : record;
}

/**
 * What the ledger records of one landing: hours landed, quarantined and missing, and the state
 * the chunk moves to. Missing hours are the expected ones that neither landed nor were
 * quarantined; while the re-fetch policy allows it, missing or quarantined hours make the chunk
 * wait for another call rather than become holes.
 */
function toLedger(
  landing: ChunkLanding,
  rows: number,
  rowsByHour: ReadonlyMap<number, number>,
): { record: LandingRecord; result: LandingResult } {
  const { facts } = landing;
  const landedHours = new Set(rowsByHour.keys());
  const expected = landing.outcome === 'rows' && landing.expected ? hoursOf(landing.expected) : [];
  const missing = expected.filter((h) => !landedHours.has(h) && !facts.quarantinedHours.has(h));
  const quarantinedHours = [...facts.quarantinedHours].filter((h) => !landedHours.has(h));
  const incomplete = missing.length + quarantinedHours.length > 0;
  const state: LandingState = landing.rebuild
    ? 'rebuild'
    : !landing.complete
      ? 'partial'
      : incomplete && landing.refetchAllowed
        ? 'refetch'
        : 'done';
  const done = state === 'done';
  const clean = landing.expected && landing.outcome !== 'rows' ? [landing.expected] : [];
  const missingRanges = hourRanges(missing);
  const record: LandingRecord = {
    chunkId: landing.chunkId,
    runId: landing.runId,
    locationId: landing.locationId,
    dataset: landing.dataset,
    window: landing.window,
    outcome: landing.outcome,
    state,
    calls: landing.calls,
    attempts: landing.attempts,
    startedAt: landing.startedAt,
    rows,
    rowsByHour,
    recordsQuarantined: facts.quarantined.length,
    landed: hourRanges(landedHours),
    holes: {
      missing_upstream: done ? missingRanges : [],
      quarantined: done ? hourRanges(quarantinedHours) : [],
      not_covered: done && landing.outcome === 'not_covered' ? clean : [],
    },
    noData: done && landing.outcome === 'no_data' ? clean : [],
    ...(state === 'refetch' && {
      message:
        `the answer lacked ${missing.length} hour(s)` +
        (missingRanges.length ? ` (${formatHourRanges(missingRanges)})` : '') +
        (quarantinedHours.length
          ? ` and ${quarantinedHours.length} hour(s) were quarantined`
          : '') +
        '; the chunk is fetched again',
    }),
    quarantine: facts.quarantined.map((q) => ({
      source: `${landing.dataset}_history`,
      recordIndex: q.recordIndex,
      raw: q.raw,
      reason: q.reason,
      hour: q.hour,
    })),
  };
  const result: LandingResult = {
    chunkId: landing.chunkId,
    state,
    rows,
    quarantined: facts.quarantined.length,
    outsideWindow: facts.outsideWindow,
    duplicateHours: facts.duplicateHours,
    conflictHours: facts.conflictHours,
    missingHours: missing.length,
    quarantinedHours: quarantinedHours.length,
  };
  return { record, result };
}
