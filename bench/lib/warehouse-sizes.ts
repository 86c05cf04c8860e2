import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/warehouse/schema.js';

/** On-disk size of one table, its partitions included. */
export interface TableSize {
  readonly table: string;
  readonly rows: number;
  /** Heap with its TOAST, free-space and visibility maps (`pg_table_size`), all partitions. */
  readonly heapBytes: number;
  /** Every index of the table and its partitions (`pg_indexes_size`). */
  readonly indexBytes: number;
}

/**
 * Sizes of `tables` of schema `envdata`, each summed over its partition tree (or the table alone), with exact row
 * counts (`count(*)`: the bench's tables are freshly written and analyzed).
 */
export async function measureTableSizes(
  db: Kysely<Database>,
  tables: readonly string[],
): Promise<TableSize[]> {
  const out: TableSize[] = [];
  for (const table of tables) {
    const qualified = `envdata.${table}`;
    const { rows } = await sql<{ heap: string; indexes: string; n: string }>`
      select sum(pg_table_size(relid))::bigint::text as heap,
        sum(pg_indexes_size(relid))::bigint::text as indexes,
        (select count(*) from ${sql.table(qualified)})::text as n
      from (select relid from pg_partition_tree(${qualified}::regclass)
        union select ${qualified}::regclass) t`.execute(db);
    const row = rows[0]!;
    out.push({
      table,
      rows: Number(row.n),
      heapBytes: Number(row.heap),
      indexBytes: Number(row.indexes),
    });
  }
  return out;
}
