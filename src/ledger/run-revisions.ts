import { sql, type Kysely, type Transaction } from 'kysely';
import { DATASETS, type Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';

/** What a run re-read of one dataset, and how much of it it revised. */
export interface DatasetRevisions {
  readonly dataset: Dataset;
  /**
   * Hours it landed that had landed before (another run's, an earlier answer of the same
   * chunk): each landing counts the hours it brought that the coverage held when it opened.
   */
  readonly rereadHours: number;
  /**
   * Hours whose stored values it changed, the old ones kept in the revision tables
   * (`replaced_by_answer`, an answer of the run): distinct (location, hour) — for pollen over `pollen_hourly_revision`
   * and `pollen_species_hourly_revision` together, an hour counted once whatever types or
   * species changed.
   */
  readonly revisedHours: number;
}

/**
 * By run of `runIds`, one entry per dataset (in `DATASETS` order): the hours it re-read (its
 * chunks' `reread_hours` and those folded, `folded_reread_hours`) and the hours it revised
 * (the revision tables, by the answers of the run that replaced values). Part of `readRunProgress`.
 */
export async function readRunRevisions(
  db: Kysely<Database> | Transaction<Database>,
  runIds: readonly number[],
): Promise<Map<number, readonly DatasetRevisions[]>> {
  const { rows } = await sql<{
    run_id: number;
    dataset: Dataset;
    reread: string;
    revised: string;
  }>`
    select r.run_id, d.dataset,
      (coalesce((r.folded_reread_hours->>d.dataset)::bigint, 0) + coalesce((
        select sum(c.reread_hours) from envdata.chunk c
        where c.run_id = r.run_id and c.dataset::text = d.dataset), 0))::text as reread,
      (case d.dataset
        when 'weather' then (select count(*) from (
          select distinct w.location_id, w.observed_at from envdata.weather_hourly_revision w
          join envdata.answer a on a.answer_id = w.replaced_by_answer
          where a.run_id = r.run_id) x)
        else (select count(*) from (
          select p.location_id, p.observed_at from envdata.pollen_hourly_revision p
          join envdata.answer a on a.answer_id = p.replaced_by_answer
          where a.run_id = r.run_id
          union
          select s.location_id, s.observed_at from envdata.pollen_species_hourly_revision s
          join envdata.answer a on a.answer_id = s.replaced_by_answer
          where a.run_id = r.run_id) x)
      end)::text as revised
    from envdata.run r
    cross join unnest(${[...DATASETS]}::text[]) as d(dataset)
    where r.run_id = any(${[...runIds]}::int[])`.execute(db);
  const byRun = new Map<number, DatasetRevisions[]>();
  for (const row of rows) {
    const list = byRun.get(row.run_id) ?? [];
    list.push({
      dataset: row.dataset,
      rereadHours: Number(row.reread),
      revisedHours: Number(row.revised),
    });
    byRun.set(row.run_id, list);
  }
  for (const list of byRun.values()) {
    list.sort((a, b) => DATASETS.indexOf(a.dataset) - DATASETS.indexOf(b.dataset));
  }
  return byRun;
}
