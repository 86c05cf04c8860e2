import { gzipSync } from 'node:zlib';
import { sql, type Kysely, type Transaction } from 'kysely';
import type {
  NormalizedPollen,
  NormalizedWeather,
  PollenSpeciesRow,
  PollenTypeRow,
  QuarantinedRecord,
  WeatherRow,
} from '../normalize/fact-rows.js';
import { normalizePollen } from '../normalize/normalize-pollen.js';
import { normalizeWeather } from '../normalize/normalize-weather.js';
import type { PollenPayload, WeatherPayload } from '../service/models.js';
import type { Window } from '../types.js';
import type { ChunkOutcome, Database } from './schema.js';
import { SpeciesIds } from './species-ids.js';
import { upsertPollenHourly, upsertPollenSpeciesHourly } from './upsert-pollen-hourly.js';
import { upsertWeatherHourly, type LocatedRows } from './upsert-weather-hourly.js';
import { YearPartitions } from './year-partitions.js';

interface LandingBase {
  readonly chunkId: number;
  readonly locationId: number;
  readonly window: Window;
  /** `no_data` / `not_covered` land zero rows and still mark the chunk done. */
  readonly outcome: ChunkOutcome;
  /**
   * `false` for a trimmed (206, PARTIAL) payload: its rows land, but the chunk is not marked
   * done and will be fetched again.
   */
  readonly complete: boolean;
  /** API calls made for this landing (0 for a rebuild from the archive). */
  readonly calls: number;
  readonly attempts: number;
  readonly startedAt: Date;
  readonly httpStatus: number;
}

/** What one chunk brings to the warehouse. */
export type ChunkLanding = LandingBase &
  (
    | { readonly dataset: 'pollen'; readonly payload: PollenPayload | undefined }
    | { readonly dataset: 'weather'; readonly payload: WeatherPayload | undefined }
  );

export interface LandingResult {
  readonly chunkId: number;
  /** Fact rows the payload normalized to. */
  readonly rows: number;
  readonly quarantined: number;
  readonly outsideWindow: number;
  readonly duplicateHours: number;
}

export interface LandingSummary {
  readonly results: readonly LandingResult[];
  /** Fact rows inserted or changed; 0 when identical rows were landed again. */
  readonly rowsWritten: number;
}

export interface FactWriterOptions {
  /** Keep each chunk's raw payload, gzip-compressed (ENVDATA_ARCHIVE_RAW). */
  readonly archiveRaw: boolean;
}

type Normalized =
  | { readonly dataset: 'pollen'; readonly facts: NormalizedPollen }
  | { readonly dataset: 'weather'; readonly facts: NormalizedWeather };

/**
 * Lands chunks: normalizes their payloads and commits facts, quarantine, raw payload, dirty
 * rollup days and the ledger mark in ONE transaction, with set-based statements for the whole
 * batch (per fact table a probe and one insert or upsert, then one statement for the rest). A
 * chunk is either fully landed and marked done, or not at all; landing the same chunk again
 * changes no fact row.
 */
export class FactWriter {
  private readonly species = new SpeciesIds();
  private readonly partitions = new YearPartitions();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: FactWriterOptions,
  ) {}

  async land(landings: readonly ChunkLanding[]): Promise<LandingSummary> {
    if (landings.length === 0) return { results: [], rowsWritten: 0 };
    const normalized = landings.map((l) => normalize(l));
    await this.prepare(normalized);
    const archives = this.options.archiveRaw ? archivesOf(landings) : [];

    const weatherGroups: LocatedRows<WeatherRow>[] = [];
    const pollenGroups: LocatedRows<PollenTypeRow>[] = [];
    const speciesGroups: LocatedRows<PollenSpeciesRow>[] = [];
    const results: LandingResult[] = [];
    const quarantine: QuarantineEntry[] = [];
    for (let i = 0; i < landings.length; i++) {
      const landing = landings[i]!;
      const n = normalized[i]!;
      let rows: number;
      if (n.dataset === 'weather') {
        weatherGroups.push({ locationId: landing.locationId, rows: n.facts.rows });
        rows = n.facts.rows.length;
      } else {
        pollenGroups.push({ locationId: landing.locationId, rows: n.facts.typeRows });
        speciesGroups.push({ locationId: landing.locationId, rows: n.facts.speciesRows });
        rows = n.facts.typeRows.length + n.facts.speciesRows.length;
      }
      for (const q of n.facts.quarantined) {
        quarantine.push({
          chunkId: landing.chunkId,
          locationId: landing.locationId,
          source: `${landing.dataset}_history`,
          q,
        });
      }
      results.push({
        chunkId: landing.chunkId,
        rows,
        quarantined: n.facts.quarantined.length,
        outsideWindow: n.facts.outsideWindow,
        duplicateHours: n.facts.duplicateHours,
      });
    }

    const rowsWritten = await this.db.transaction().execute(async (trx) => {
      let written = 0;
      written += await upsertWeatherHourly(trx, weatherGroups);
      written += await upsertPollenHourly(trx, pollenGroups);
      written += await upsertPollenSpeciesHourly(trx, speciesGroups, this.species);

      await recordLandings(trx, landings, results, quarantine, archives);
      return written;
    });
    return { results, rowsWritten };
  }

  /** Partitions and species ids, outside the landing transaction (short locks, no rollback). */
  private async prepare(normalized: readonly Normalized[]): Promise<void> {
    // One instant per UTC year is all the partitions need; not one per row.
    const weatherYears = new Map<number, Date>();
    const pollenYears = new Map<number, Date>();
    const species: (readonly PollenSpeciesRow[])[] = [];
    for (const n of normalized) {
      if (n.dataset === 'weather') {
        addYears(weatherYears, n.facts.rows);
      } else {
        addYears(pollenYears, n.facts.typeRows);
        addYears(pollenYears, n.facts.speciesRows);
        species.push(n.facts.speciesRows);
      }
    }
    await this.partitions.ensure(this.db, 'weather_hourly', weatherYears.values());
    await this.partitions.ensure(this.db, 'pollen_hourly', pollenYears.values());
    await this.partitions.ensure(this.db, 'pollen_species_hourly', pollenYears.values());
    await this.species.resolve(this.db, species.flat());
  }
}

interface QuarantineEntry {
  readonly chunkId: number;
  readonly locationId: number;
  readonly source: string;
  readonly q: QuarantinedRecord;
}

/**
 * Everything but the facts, in ONE statement (one round trip per batch instead of five): the
 * chunks' previous quarantine entries replaced by the new ones (the delete does not see rows
 * inserted by the same statement), raw payloads, dirty rollup days, and the ledger mark.
 */
async function recordLandings(
  trx: Transaction<Database>,
  landings: readonly ChunkLanding[],
  results: readonly LandingResult[],
  quarantine: readonly QuarantineEntry[],
  archives: readonly Archive[],
): Promise<void> {
  const chunkIds = landings.map((l) => l.chunkId);
  const dirty = landings.filter((_, i) => results[i]!.rows > 0);
  await sql`
    with cleared as (
      delete from envdata.quarantine where chunk_id = any(${chunkIds}::bigint[])
    ), quarantined as (
      insert into envdata.quarantine (chunk_id, location_id, source, record_index, raw, reason)
      select * from unnest(${quarantine.map((e) => e.chunkId)}::bigint[],
        ${quarantine.map((e) => e.locationId)}::int[], ${quarantine.map((e) => e.source)}::text[],
        ${quarantine.map((e) => e.q.recordIndex)}::int[],
        ${quarantine.map((e) => (e.q.raw === undefined ? null : JSON.stringify(e.q.raw)))}::jsonb[],
        ${quarantine.map((e) => e.q.reason)}::text[])
    ), archived as (
      insert into envdata.raw_payload as p (chunk_id, fetched_at, http_status, body, body_bytes)
      select * from unnest(${archives.map((a) => a.chunkId)}::bigint[],
        ${archives.map((a) => a.fetchedAt)}::timestamptz[],
        ${archives.map((a) => a.httpStatus)}::smallint[], ${archives.map((a) => a.body)}::bytea[],
        ${archives.map((a) => a.bodyBytes)}::int[])
      -- An identical body keeps the stored (TOASTed) value: a re-landing does not write it again.
      on conflict (chunk_id) do update set fetched_at = excluded.fetched_at,
        http_status = excluded.http_status, body_bytes = excluded.body_bytes,
        body = case when p.body = excluded.body then p.body else excluded.body end
    ), dirtied as (
      insert into envdata.rollup_dirty (location_id, dataset, from_at, to_at)
      select * from unnest(${dirty.map((l) => l.locationId)}::int[],
        ${dirty.map((l) => l.dataset)}::envdata.dataset[],
        ${dirty.map((l) => l.window.from)}::timestamptz[],
        ${dirty.map((l) => l.window.to)}::timestamptz[])
    )
    update envdata.chunk c set
      status = case when u.complete then 'done'::envdata.chunk_status else c.status end,
      outcome = u.outcome,
      rows_landed = u.rows,
      rows_quarantined = u.quarantined,
      calls = c.calls + u.calls,
      attempts = greatest(c.attempts, u.attempts),
      error_code = case when u.complete then null else 'PARTIAL' end,
      error_message = case when u.complete then null
        else 'the service trimmed the payload (206); rows kept, chunk will be fetched again' end,
      started_at = coalesce(c.started_at, u.started_at),
      finished_at = case when u.complete then now() else c.finished_at end
    from unnest(${chunkIds}::bigint[], ${landings.map((l) => l.complete)}::bool[],
      ${landings.map((l) => l.outcome)}::text[], ${results.map((r) => r.rows)}::int[],
      ${results.map((r) => r.quarantined)}::int[], ${landings.map((l) => l.calls)}::int[],
      ${landings.map((l) => l.attempts)}::int[], ${landings.map((l) => l.startedAt)}::timestamptz[])
      as u(chunk_id, complete, outcome, rows, quarantined, calls, attempts, started_at)
    where c.chunk_id = u.chunk_id
  `.execute(trx);
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

interface Archive {
  readonly chunkId: number;
  readonly fetchedAt: Date;
  readonly httpStatus: number;
  readonly body: Buffer;
  readonly bodyBytes: number;
}

/**
 * The raw payloads, gzip-compressed, one per chunk (the last one if a chunk came twice).
 * Synchronously: a 48 h body compresses in well under a millisecond, while the asynchronous
 * `zlib.gzip` costs several times that per call in thread-pool handoffs and fresh deflate state,
 * on the same cores Postgres needs for the insert (measured: 32 bodies 6–14 ms vs 2.5 ms).
 */
function archivesOf(landings: readonly ChunkLanding[]): Archive[] {
  const byChunk = new Map<number, { landing: ChunkLanding; rawBody: string }>();
  for (const landing of landings) {
    if (landing.payload) {
      byChunk.set(landing.chunkId, { landing, rawBody: landing.payload.rawBody });
    }
  }
  return [...byChunk.values()].map(({ landing, rawBody }) => ({
    chunkId: landing.chunkId,
    fetchedAt: landing.startedAt,
    httpStatus: landing.httpStatus,
    body: gzipSync(rawBody),
    bodyBytes: Buffer.byteLength(rawBody),
  }));
}

function normalize(landing: ChunkLanding): Normalized {
  if (landing.dataset === 'weather') {
    const facts = landing.payload
      ? normalizeWeather(landing.payload, landing.window)
      : { rows: [], quarantined: [], outsideWindow: 0, duplicateHours: 0 };
    return { dataset: 'weather', facts };
  }
  const facts = landing.payload
    ? normalizePollen(landing.payload, landing.window)
    : { typeRows: [], speciesRows: [], quarantined: [], outsideWindow: 0, duplicateHours: 0 };
  return { dataset: 'pollen', facts };
}
