import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A DuckDB in memory for one command, UTC, with a bounded memory; closed by `close()`. */
export interface DuckSession {
  readonly connection: DuckDBConnection;
  /** The rows of `sql` as objects, values as JSON-safe values (bigints as strings). */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  run(sql: string): Promise<void>;
  close(): void;
}

export async function openDuckSession(
  options: { memoryLimit?: string; threads?: number } = {},
): Promise<DuckSession> {
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: options.memoryLimit ?? '256MB',
    ...(options.threads !== undefined && { threads: String(options.threads) }),
  });
  const connection = await instance.connect();
  await connection.run(`SET TimeZone = 'UTC'`);
  await connection.run('SET preserve_insertion_order = false');
  return {
    connection,
    async rows(sql) {
      const reader = await connection.runAndReadAll(sql);
      return reader.getRowObjectsJson() as Record<string, unknown>[];
    },
    async run(sql) {
      await connection.run(sql);
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** A string literal of DuckDB SQL. */
export const duckString = (text: string): string => `'${text.replace(/'/g, "''")}'`;
