import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A DuckDB in memory for one command, UTC, with a bounded memory; closed by `close()`. */
export interface DuckSession {
  readonly connection: DuckDBConnection;
  /** The rows of `sql` as objects, values as JSON-safe values (bigints as strings). */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  run(sql: string): Promise<void>;
  /** Another connection to the same database, for a query at the same time; closed by `close()`. */
  connect(): Promise<DuckSession>;
  close(): void;
}

export async function openDuckSession(
  options: { memoryLimit?: string; threads?: number } = {},
): Promise<DuckSession> {
  const instance = await DuckDBInstance.create(':memory:', {
    memory_limit: options.memoryLimit ?? '256MB',
    ...(options.threads !== undefined && { threads: String(options.threads) }),
  });
  const others: DuckSession[] = [];
  const session = async (closeAll: () => void): Promise<DuckSession> => {
    const connection = await instance.connect();
    let closed = false;
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
      async connect() {
        const other = await session(() => {});
        others.push(other);
        return other;
      },
      close() {
        if (closed) return;
        closed = true;
        connection.closeSync();
        closeAll();
      },
    };
  };
  return session(() => {
    for (const other of others) other.close();
    instance.closeSync();
  });
}

/** A string literal of DuckDB SQL. */
export const duckString = (text: string): string => `'${text.replace(/'/g, "''")}'`;
