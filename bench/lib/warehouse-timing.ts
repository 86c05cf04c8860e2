import { performance } from 'node:perf_hooks';
import { sql, type Kysely } from 'kysely';
import { BI_ROLE } from '../../src/warehouse/ensure-bi-role.js';
import type { Database } from '../../src/warehouse/schema.js';
import type { ExampleQuery } from './warehouse-queries.js';

/** One query's timings over its runs, after a warm-up run. */
export interface QueryTiming {
  readonly query: ExampleQuery;
  /** Rows the query returned. */
  readonly rows: number;
  /** Round trips with every row, parsed by node-postgres. */
  readonly medianMs: number;
  readonly p95Ms: number;
  /**
   * The server's own time (`EXPLAIN (ANALYZE, TIMING OFF)`: planning and execution, every row
   * produced, none sent), median over as many runs.
   */
  readonly serverMs: number;
}

/** The `q`-quantile of `values` by nearest rank (p95 of 7 runs is the slowest). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

interface ExplainAnalyze {
  readonly 'Planning Time': number;
  readonly 'Execution Time': number;
}

/**
 * Runs `query` as `envdata_bi` (`SET ROLE` on one connection, as the BI tools' sessions would
 * be: the role's grants, not the superuser's; a baseline as the owner), once to warm up, then
 * `runs` times, timing each round trip with all its rows; then `runs` times under `EXPLAIN
 * ANALYZE`, for the server's time without sending the rows.
 */
export async function timeQuery(
  db: Kysely<Database>,
  query: ExampleQuery,
  runs: number,
): Promise<QueryTiming> {
  return db.connection().execute(async (conn) => {
    if (query.baselineOf === undefined) await sql`set role ${sql.id(BI_ROLE)}`.execute(conn);
    try {
      const warm = await sql.raw(query.text).execute(conn);
      const ms: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await sql.raw(query.text).execute(conn);
        ms.push(performance.now() - t0);
      }
      const server: number[] = [];
      for (let i = 0; i < runs; i++) {
        const { rows } = await sql
          .raw<{
            'QUERY PLAN': readonly ExplainAnalyze[];
          }>(`explain (analyze, timing off, format json) ${query.text}`)
          .execute(conn);
        const plan = rows[0]!['QUERY PLAN'][0]!;
        server.push(plan['Planning Time'] + plan['Execution Time']);
      }
      return {
        query,
        rows: warm.rows.length,
        medianMs: quantile(ms, 0.5),
        p95Ms: quantile(ms, 0.95),
        serverMs: quantile(server, 0.5),
      };
    } finally {
      await sql`reset role`.execute(conn);
    }
  });
}
