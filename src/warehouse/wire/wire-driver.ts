import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { CopyIn } from './copy-in.js';
import type { WireQuery } from './statements.js';

/**
 * Distinct prepared statements one connection keeps at most; a named statement past it runs
 * unnamed (a bound on the server's memory).
 */
export const MAX_PREPARED_PER_CONNECTION = 64;

export interface WireOptions {
  readonly pool: pg.Pool;
  /**
   * Run `named` statements prepared, once per connection (DATABASE_PREPARED_STATEMENTS): behind
   * a pooler in transaction mode, named statements need PgBouncer 1.21+ with
   * `max_prepared_statements`.
   */
  readonly prepare: boolean;
}

/**
 * Kysely's PostgreSQL dialect with envdata's connection (`WireConnection`): its adapter,
 * compiler and introspector, over a `pg` pool.
 */
export class WireDialect implements Dialect {
  constructor(private readonly options: WireOptions) {}

  createAdapter() {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new WireDriver(this.options);
  }

  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>) {
    return new PostgresIntrospector(db);
  }
}

/**
 * As Kysely's `PostgresDriver` (kysely-org/kysely: src/dialect/postgres/postgres-driver.ts), with
 * envdata's connection.
 */
class WireDriver implements Driver {
  private readonly connections = new WeakMap<pg.PoolClient, WireConnection>();
  private pool: pg.Pool | undefined;

  constructor(private readonly options: WireOptions) {}

  async init(): Promise<void> {
    this.pool = this.options.pool;
  }

  async acquireConnection(): Promise<WireConnection> {
    const pool = this.pool;
    if (!pool) throw new Error('the database was destroyed');
    const client = await pool.connect();
    let connection = this.connections.get(client);
    if (!connection) {
      connection = new WireConnection(client, this.options.prepare);
      this.connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const mode = [
      settings.isolationLevel && `isolation level ${settings.isolationLevel}`,
      settings.accessMode,
    ].filter(Boolean);
    const begin = mode.length > 0 ? ['start transaction', ...mode].join(' ') : 'begin';
    await connection.executeQuery(CompiledQuery.raw(begin));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as WireConnection).client.release();
  }

  async destroy(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.end();
  }
}

/** What Kysely reads of a `pg` result. */
interface PgResult {
  readonly command?: string;
  readonly rowCount: number | null;
  readonly rows?: readonly unknown[];
}

const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * One pooled connection: runs a `WireQuery` as a named (prepared) statement, a COPY with its
 * data, or a plain statement.
 */
export class WireConnection implements DatabaseConnection {
  /** The text each name was prepared with on this connection. */
  private readonly names = new Map<string, string>();

  constructor(
    readonly client: pg.PoolClient,
    private readonly prepare: boolean,
  ) {}

  async executeQuery<R>(query: WireQuery<R>): Promise<QueryResult<R>> {
    const { command, rowCount, rows } = await this.send(query);
    return {
      numAffectedRows:
        command !== undefined && COUNTED.has(command) ? BigInt(rowCount ?? 0) : undefined,
      rows: (rows ?? []) as R[],
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('envdata does not stream query results');
  }

  private send(query: WireQuery): Promise<PgResult> {
    const values = [...query.parameters];
    if (query.copyData) {
      const copy = new CopyIn(query.sql, query.copyData);
      void this.client.query(copy);
      return copy.done;
    }
    const name = query.statementName;
    if (this.prepare && name !== undefined) {
      const prepared = this.names.get(name);
      // A name met again with another text (a call site whose text varies) runs unnamed:
      // correct, only not prepared.
      if (prepared === query.sql || (!prepared && this.names.size < MAX_PREPARED_PER_CONNECTION)) {
        this.names.set(name, query.sql);
        return this.client.query({ name, text: query.sql, values });
      }
    }
    return this.client.query(query.sql, values);
  }
}
