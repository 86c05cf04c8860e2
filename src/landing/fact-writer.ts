import type { Kysely } from 'kysely';
import type { ChunkLanding, LandingResult } from '../ledger/landing-decision.js';
import { openLanding, withNewRows } from '../ledger/open-landing.js';
import { ledgerStatements, type LandingRecord } from '../ledger/record-landings.js';
import type { MetricsObserver } from '../metrics/metrics-observer.js';
import type { Dataset } from '../types.js';
import type { FactRow } from '../warehouse/fact-rows.js';
import type { FactTable, WriteContext } from '../warehouse/fact-table.js';
import type { LocatedRows } from '../warehouse/located-rows.js';
import type { Database } from '../warehouse/schema.js';
import { SpeciesIds } from '../warehouse/species-ids.js';
import {
  RowsStoredAlready,
  writeFacts,
  type AlongsideFacts,
  type WriteTechniques,
} from '../warehouse/write-facts.js';
import type { Statement } from '../warehouse/wire/index.js';
import { NO_SPAN, tracingStarted, type TraceSpan } from '../tracing/tracing.js';
import { YearPartitions } from '../warehouse/year-partitions.js';
import { AnswerIds } from './answer-ids.js';
import {
  answerDigests,
  answersOf,
  bodyDigests,
  specOf,
  stageLanding,
  type StagedLanding,
} from './stage-landing.js';

export interface LandingSummary {
  readonly results: readonly LandingResult[];
  /** Fact rows inserted or changed; 0 when identical rows were landed again. */
  readonly rowsWritten: number;
}

export interface FactWriterOptions {
  /** Keep each answer's body, gzip-compressed (ENVDATA_ARCHIVE_RAW). */
  readonly archiveRaw: boolean;
  /**
   * The archive's retention deletes old bodies (ENVDATA_ARCHIVE_RETENTION_DAYS): a landing
   * holds the bodies it reuses until it commits (`openLanding`).
   */
  readonly archiveRetention?: boolean;
  /**
   * Told, once per dataset of each committed batch, the fact rows it inserted or changed and
   * the records it quarantined. Re-landings from the archive (`rebuild`) are not reported.
   */
  readonly observer?: Pick<MetricsObserver, 'landed'>;
  /** How facts are written (`bench:upsert` switches them); all on by default. */
  readonly techniques?: WriteTechniques;
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
  private readonly answerIds: AnswerIds;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: FactWriterOptions,
  ) {
    this.answerIds = new AnswerIds(db);
  }

  /** Stages `landing` (`stageLanding`) unless it was. */
  stage(landing: ChunkLanding): Promise<StagedLanding> {
    if ('decision' in landing) return Promise.resolve(landing as StagedLanding);
    return stageLanding(landing, {
      archiveRaw: this.options.archiveRaw,
      context: this.context,
      answerIds: this.answerIds,
    });
  }

  /** Lands `unstaged` in one transaction; `span` (the batch's transaction) says what it wrote. */
  async land(
    unstaged: readonly ChunkLanding[],
    span: TraceSpan = NO_SPAN,
  ): Promise<LandingSummary> {
    if (unstaged.length === 0) return { results: [], rowsWritten: 0 };
    const landings = await Promise.all(unstaged.map((l) => this.stage(l)));
    const batch: TableBatch = new Map();
    for (const landing of landings) {
      landing.facts.tables.forEach(({ table, rows }, t) => {
        let groups = batch.get(table);
        if (!groups) batch.set(table, (groups = []));
        groups.push({
          locationId: landing.locationId,
          rows,
          staged: landing.encoded[t],
          answerId: landing.answer?.answerId ?? null,
        });
      });
    }
    await this.prepare(batch);
    const tables = [...batch].map(([table, groups]) => ({
      // The table reads its own rows: the batch groups them by table.
      spec: specOf(table, this.context),
      groups,
    }));
    const records = landings.map((l) => l.decision.record);
    // The ledger's statements the transaction ran, by name, for its span.
    const statements: string[] = [];
    const inTransaction = (assumeNewAllowed: boolean) =>
      this.db.transaction().execute(async (trx) => {
        statements.length = 0;
        const opened = await openLanding(
          trx,
          records,
          bodyDigests(landings),
          answerDigests(landings),
          this.options.archiveRetention ?? false,
        );
        const answers = answersOf(landings, opened.storedBodies, opened.knownAnswers);
        const ledger = records.map((r, i) =>
          withAnswer(withNewRows(r, opened.landedBefore.get(i)), answers.get(i)),
        );
        const alongside = ledgerStatements(ledger, opened.settled);
        return writeFacts(trx, tables, {
          assumeNew: assumeNewAllowed && !opened.anyLanded,
          alongside: tracingStarted() ? namesKept(alongside, statements) : alongside,
          techniques: this.options.techniques,
        });
      });
    // Rows the ledger did not know of were stored after all (a concurrent landing of the same
    // chunks, say): the plain insert aborted the transaction; this time the rows are probed.
    const written = await inTransaction(true).catch((error: unknown) => {
      if (error instanceof RowsStoredAlready) return inTransaction(false);
      throw error;
    });
    this.report(landings, [...batch.keys()], written);
    // Traced: on the landing transaction's span (`envdata.landing.transaction`).
    span.setAttributes({
      'envdata.landing.chunks': landings.length,
      'envdata.landing.tables': tables.map((t) => t.spec.table),
      'envdata.landing.rows_written': written.reduce((sum, n) => sum + n, 0),
      'envdata.landing.statements': [
        this.options.archiveRetention ? 'envdata_open_landing_hold' : 'envdata_open_landing',
        ...statements,
      ],
    });
    return {
      results: landings.map((l) => l.decision.result),
      rowsWritten: written.reduce((sum, n) => sum + n, 0),
    };
  }

  /** Tells the observer, by dataset, the rows written and the records quarantined. */
  private report(
    landings: readonly StagedLanding[],
    tables: readonly FactTable<FactRow>[],
    written: readonly number[],
  ): void {
    const { observer } = this.options;
    if (!observer) return;
    const tally = new Map<Dataset, { rows: number; quarantined: number }>();
    const datasetOf = new Map<FactTable<FactRow>, Dataset>();
    for (const landing of landings) {
      if (landing.rebuild) continue;
      const t = tally.get(landing.dataset) ?? { rows: 0, quarantined: 0 };
      t.quarantined += landing.facts.quarantined.length;
      tally.set(landing.dataset, t);
      for (const { table } of landing.facts.tables) datasetOf.set(table, landing.dataset);
    }
    tables.forEach((table, k) => {
      const dataset = datasetOf.get(table);
      if (dataset !== undefined) tally.get(dataset)!.rows += written[k] ?? 0;
    });
    for (const [dataset, t] of tally) observer.landed(dataset, t.rows, t.quarantined);
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

function addYears(years: Map<number, Date>, rows: readonly { observedAt: Date }[]): void {
  let last = Number.NaN;
  for (const { observedAt } of rows) {
    const year = observedAt.getUTCFullYear();
    if (year === last) continue;
    last = year;
    if (!years.has(year)) years.set(year, observedAt);
  }
}

function withAnswer(
  record: LandingRecord,
  answer: LandingRecord['answer'] | undefined,
): LandingRecord {
  return answer ? { ...record, answer } : record;
}

/** `alongside`, each statement's name pushed to `names` as it runs. */
function namesKept(alongside: AlongsideFacts, names: string[]): AlongsideFacts {
  const kept = (statements: readonly Statement<unknown>[]) =>
    statements.map((statement) => ({
      ...statement,
      execute: (db: Parameters<Statement<unknown>['execute']>[0]) => {
        if (statement.name !== undefined) names.push(statement.name);
        return statement.execute(db);
      },
    }));
  return { first: kept(alongside.first), after: (changed) => kept(alongside.after(changed)) };
}
