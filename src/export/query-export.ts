import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { EXPORT_DATASETS } from './export-datasets.js';
import { duckString, openDuckSession } from './duckdb-session.js';

/**
 * The DuckDB views `export query` defines over an export's directory: one per dataset, named
 * like it, with `year` and `month` from the Hive paths (empty, typed, when it has no file).
 */
export async function exportViews(dir: string): Promise<string[]> {
  const present = new Set(
    (await readdir(dir).catch(() => [] as string[]))
      .filter((name) => name.startsWith('dataset='))
      .map((name) => name.slice('dataset='.length)),
  );
  return EXPORT_DATASETS.map((d) => {
    if (!present.has(d.name)) {
      // No file (nothing of it in the warehouse): an empty view of its columns, so queries run.
      const columns = d.columns.map((c) => `NULL::${c.type} AS "${c.name}"`);
      if (d.partitionBy !== 'none') columns.push('NULL::INTEGER AS year', 'NULL::INTEGER AS month');
      return `CREATE VIEW ${d.name} AS SELECT ${columns.join(', ')} WHERE false`;
    }
    const glob = path.join(dir, `dataset=${d.name}`, '**', '*.parquet');
    return `CREATE VIEW ${d.name} AS SELECT * FROM read_parquet(${duckString(glob)}, ${d.partitionBy === 'none' ? 'hive_partitioning = false' : "hive_partitioning = true, hive_types = {'year': INTEGER, 'month': INTEGER}"})`;
  });
}

export interface QueryResult {
  readonly columns: readonly string[];
  readonly rows: readonly Record<string, unknown>[];
}

/** `envdata export query --to DIR "SQL"`: runs `sql` with DuckDB over the files. */
export async function queryExport(dir: string, sql: string): Promise<QueryResult> {
  const duck = await openDuckSession();
  try {
    for (const view of await exportViews(path.resolve(dir))) await duck.run(view);
    const reader = await duck.connection.runAndReadAll(sql);
    return {
      columns: reader.columnNames(),
      rows: reader.getRowObjectsJson() as Record<string, unknown>[],
    };
  } finally {
    duck.close();
  }
}
