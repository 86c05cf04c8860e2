import type { Location } from '../locations/location.js';
import type { ShareUnitVerdicts } from '../normalize/decide-share-unit.js';
import type { HistoryPayload, ParsedPayload } from '../service/models.js';
import type { ServiceClient } from '../service/service-client.js';
import type { ShareUnits, Window } from '../types.js';
import type { FactRow, QuarantinedRecord } from '../warehouse/fact-rows.js';
import type {
  FactTable,
  LandingFacts,
  SnapshotRows,
  SnapshotTable,
} from '../warehouse/fact-table.js';
import type { SnapshotProduct } from '../warehouse/schema.js';

/** Ingest settings a dataset may honour when it calls the service (from the config). */
export interface DatasetOptions {
  /** Ask for per-species risk where the service offers it (ENVDATA_SPECIES_RISK). */
  readonly speciesRisk: boolean;
}

/** One chunk's history request: where, which hours, with which settings. */
export interface HistoryRequest {
  readonly location: Pick<Location, 'lat' | 'lng' | 'place' | 'ingestByPlace'>;
  readonly window: Window;
  readonly options: DatasetOptions;
}

/** One snapshot's request: a sync fetches latest readings and forecasts by coordinates. */
export interface SnapshotRequest {
  readonly location: Pick<Location, 'lat' | 'lng'>;
  readonly options: DatasetOptions;
  /**
   * The sync's instant, stored as the snapshot's `fetched_at`: a latest reading the service sent
   * without a stamp is stamped with its hour (`stampAtFetch`).
   */
  readonly fetchedAt: Date;
}

/** A latest reading or forecast a sync stores for each location. */
export interface SnapshotSource<Payload extends ParsedPayload<unknown>> {
  /** Stored as `product` in the dataset's snapshot tables. */
  readonly product: SnapshotProduct;
  fetch(client: ServiceClient, request: SnapshotRequest): Promise<Payload>;
}

/**
 * Everything envdata knows about one dataset, in one object: the planner, the ingest job,
 * landing, rebuild, sync and status read it from the registry (`registry.ts`) instead of
 * branching on names. `Payload` is what its service calls return; it never leaves the
 * definition's own stages (request → parse → normalize → rows).
 */
export interface DatasetDefinition<
  Name extends string = string,
  Payload extends ParsedPayload<unknown> = ParsedPayload<unknown>,
> {
  /** In the CLI (`--dataset`), the ledger (`envdata.dataset`), logs and docs. */
  readonly name: Name;
  /** The first hour the service has history for (UTC): nothing before it is planned. */
  readonly historyStart: Date;
  /**
   * Hours one history record stands for. The ledger counts completeness hour by hour, so 1 is
   * the only value it supports yet.
   */
  readonly hoursPerRecord: 1;
  /** Fact rows one hour lands for `location` (the plan's estimate of rows). */
  rowsPerHour(location: Pick<Location, 'pollenRegion'>): number;

  /** The one service call of a chunk; a trimmed (206) answer comes back `complete: false`. */
  fetchHistory(client: ServiceClient, request: HistoryRequest): Promise<HistoryPayload<Payload>>;
  /** A history body as archived, parsed again without calling the service (rebuild). */
  parseBody(rawBody: string): Payload;
  /**
   * What the answer's shares say of their unit, field by field (`decideShareUnit`). A unit a
   * field tells is remembered for that field in the answers of the same source that cannot tell
   * (`envdata.share_unit`). Absent for a dataset without shares (pollen): nothing is remembered
   * or looked up for it.
   */
  shareUnitOf?(payload: Payload): ShareUnitVerdicts;
  /**
   * Payload → fact rows by table (pure): records outside `window` dropped, repeated hours
   * collapsed, invalid records set aside for quarantine. `remembered`: the share units of earlier
   * answers of the same source, for an answer that cannot tell its own (`shareUnitOf`).
   */
  toFacts(payload: Payload, window: Window, remembered?: ShareUnits): LandingFacts;
  /**
   * Objects of its answers whose keys are data, not format (pollen: the species of each
   * category, whose names vary by region), as path suffixes with `*` for any key: their keys
   * collapse in the answer's shape (`answerShapeOf`), so they make no new shape.
   */
  readonly answerMaps?: readonly string[];
  /** The tables its facts land in: `toFacts` returns rows for these. */
  readonly factTables: readonly FactTable<FactRow>[];

  /** The latest readings and forecasts a sync stores, and the tables they go to. */
  readonly snapshots: {
    readonly sources: readonly SnapshotSource<Payload>[];
    readonly tables: readonly SnapshotTable<FactRow>[];
    /** Payload → snapshot rows by table (pure); `remembered` as for `toFacts`. */
    toRows(payload: Payload, remembered?: ShareUnits): readonly SnapshotRows[];
    /**
     * The records of the answer whose values `toRows` sets aside (`SET_ASIDE_REASONS`: a share
     * whose unit is unknown), each with the reason; absent when a dataset sets none aside.
     */
    setAside?(payload: Payload, remembered?: ShareUnits): readonly QuarantinedRecord[];
  };

  /**
   * The daily rollup the landed days refresh: `envdata.refresh_daily_rollups()` (migrations)
   * fills `table`; BI tools read `view`.
   */
  readonly rollup: { readonly table: string; readonly view: string };
}
