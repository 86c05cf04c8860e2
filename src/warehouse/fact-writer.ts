import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import { sql, type Kysely } from 'kysely';
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
import type { SpeciesCategory, Window } from '../types.js';
import type { ChunkOutcome, Database } from './schema.js';
import { SpeciesIds } from './species-ids.js';
import { upsertPollenHourly, upsertPollenSpeciesHourly } from './upsert-pollen-hourly.js';
import { upsertWeatherHourly, type LocatedRows } from './upsert-weather-hourly.js';
import { YearPartitions } from './year-partitions.js';

const gzip = promisify(gzipCallback);

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
 * rollup days and the ledger mark in ONE transaction, with one set-based statement per table
 * for the whole batch. A chunk is either fully landed and marked done, or not at all; landing
 * the same chunk again changes no fact row.
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
    const archives = this.options.archiveRaw
      ? await Promise.all(
          landings.map(async (l) =>
            l.payload ? { landing: l, body: await gzip(l.payload.rawBody) } : undefined,
          ),
        )
      : [];

    const weatherGroups: LocatedRows<WeatherRow>[] = [];
    const pollenGroups: LocatedRows<PollenTypeRow>[] = [];
    const speciesGroups: LocatedRows<PollenSpeciesRow>[] = [];
    const results: LandingResult[] = [];
    const quarantine: {
      chunkId: number;
      locationId: number;
      source: string;
      q: QuarantinedRecord;
    }[] = [];
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

      const chunkIds = landings.map((l) => l.chunkId);
      await trx.deleteFrom('quarantine').where('chunk_id', 'in', chunkIds).execute();
      if (quarantine.length > 0) {
        await trx
          .insertInto('quarantine')
          .values(
            quarantine.map(({ chunkId, locationId, source, q }) => ({
              chunk_id: chunkId,
              location_id: locationId,
              source,
              record_index: q.recordIndex,
              raw: q.raw === undefined ? null : JSON.stringify(q.raw),
              reason: q.reason,
            })),
          )
          .execute();
      }

      for (const archive of archives) {
        if (!archive) continue;
        await trx
          .insertInto('raw_payload')
          .values({
            chunk_id: archive.landing.chunkId,
            fetched_at: archive.landing.startedAt,
            http_status: archive.landing.httpStatus,
            body: archive.body,
            body_bytes: Buffer.byteLength(archive.landing.payload?.rawBody ?? ''),
          })
          .onConflict((oc) =>
            oc.column('chunk_id').doUpdateSet((eb) => ({
              fetched_at: eb.ref('excluded.fetched_at'),
              http_status: eb.ref('excluded.http_status'),
              body: eb.ref('excluded.body'),
              body_bytes: eb.ref('excluded.body_bytes'),
            })),
          )
          .execute();
      }

      const dirty = landings.filter((_, i) => results[i]!.rows > 0);
      if (dirty.length > 0) {
        await trx
          .insertInto('rollup_dirty')
          .values(
            dirty.map((l) => ({
              location_id: l.locationId,
              dataset: l.dataset,
              from_at: l.window.from,
              to_at: l.window.to,
            })),
          )
          .execute();
      }

      await sql`
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
      return written;
    });
    return { results, rowsWritten };
  }

  /** Partitions and species ids, outside the landing transaction (short locks, no rollback). */
  private async prepare(normalized: readonly Normalized[]): Promise<void> {
    const weatherHours: Date[] = [];
    const pollenHours: Date[] = [];
    const species: { category: SpeciesCategory; species: string }[] = [];
    for (const n of normalized) {
      if (n.dataset === 'weather') {
        for (const r of n.facts.rows) weatherHours.push(r.observedAt);
      } else {
        for (const r of n.facts.typeRows) pollenHours.push(r.observedAt);
        for (const r of n.facts.speciesRows) {
          pollenHours.push(r.observedAt);
          species.push(r);
        }
      }
    }
    await this.partitions.ensure(this.db, 'weather_hourly', weatherHours);
    await this.partitions.ensure(this.db, 'pollen_hourly', pollenHours);
    await this.partitions.ensure(this.db, 'pollen_species_hourly', pollenHours);
    await this.species.resolve(this.db, species);
  }
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
