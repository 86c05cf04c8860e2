import { createHash } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';

/** What `prepared` puts first in a statement's text, for `EnvdataClient` to see. */
const PREPARED = '/* envdata:prepared */ ';
/** What `copyIn` puts first: the data's parameter, in a comment, then the COPY statement. */
const COPY = '/* envdata:copy ';

/**
 * Distinct prepared statements one connection keeps at most; a marked statement past it runs
 * unnamed, as every other statement does (a bound on the server's memory should a marked
 * statement's text ever vary).
 */
export const MAX_PREPARED_PER_CONNECTION = 64;

/**
 * Marks `statement` to be prepared once per connection (`EnvdataClient`), skipping parse and
 * planning on later runs. Only for texts that never vary: values as parameters only, no list
 * whose length follows the input (`in (…)` of values).
 *
 * @example await prepared(sql`update envdata.chunk set … where chunk_id = any(${ids}::bigint[])`).execute(trx);
 */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(PREPARED)}${statement}`;
}

/**
 * `statement`, a `COPY … FROM STDIN (FORMAT binary)`, with its input `data` (the pieces in
 * order, sent as they are, none copied), as one statement Kysely can run (`EnvdataClient` sends
 * the data right behind the statement). The result has no `numAffectedRows`: the caller knows
 * the rows it sent.
 *
 * @example await copyIn(sql`copy envdata.weather_hourly (…) from stdin (format binary)`, [header, …tuples, trailer]).execute(trx);
 */
export function copyIn(
  statement: RawBuilder<unknown>,
  data: readonly Buffer[],
): RawBuilder<unknown> {
  return sql`${sql.raw(COPY)}${data}${sql.raw(' */ ')}${statement}`;
}

/** `envdata_<hash of the text>`: one name per distinct text, the same on every connection. */
function statementName(text: string): string {
  return `envdata_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
}

export interface EnvdataClientOptions {
  /** Run the statements `prepared` marks as named statements (default true). */
  readonly prepare?: boolean;
}

/** What pg answers a `begin` with; Kysely reads only `command`, `rowCount` and `rows`. */
const BEGUN = Object.freeze({ command: 'BEGIN', rowCount: null, rows: [], fields: [] });

/**
 * envdata's node-postgres client (`createDatabase` gives it to the pool):
 * - statements marked `prepared` run as named (prepared) statements, `MAX_PREPARED_PER_CONNECTION`
 *   at most (off with `prepare: false`, as DATABASE_PREPARED_STATEMENTS=false asks: behind a
 *   pooler in transaction mode, named statements need PgBouncer 1.21+ with
 *   `max_prepared_statements`);
 * - a `copyIn` statement runs as a COPY with its data (`CopyIn`);
 * - a plain `begin` (Kysely's, opening a transaction) is queued and answered at once: the
 *   transaction's first statement follows it without waiting for this process to hear back.
 *   `begin` cannot fail but with the connection, and then that statement fails too.
 * Every other call goes on unchanged.
 */
export class EnvdataClient extends pg.Client {
  private readonly names = new Set<string>();
  private readonly prepare: boolean;

  constructor(config: pg.ClientConfig & EnvdataClientOptions = {}) {
    super(config);
    this.prepare = config.prepare !== false;
  }

  /** The pid of this connection's backend on the server, once connected (`pg_cancel_backend`). */
  get backendPid(): number | undefined {
    const pid = (this as unknown as { processID: number | null }).processID;
    return pid ?? undefined;
  }

  // pg's `query` has a dozen overloads; this one only looks at (text, values), as Kysely calls
  // it, and passes every other call on unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [text, values] = args as [unknown, unknown];
    if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
      if (text === 'begin' && values.length === 0) {
        super.query('begin').catch(() => undefined);
        return Promise.resolve(BEGUN);
      }
      if (text.startsWith(COPY) && values.length === 1 && isBuffers(values[0])) {
        const copy = new CopyIn(text.slice(text.indexOf('*/') + 2).trim(), values[0]);
        super.query(copy);
        return copy.done;
      }
      if (this.prepare && text.startsWith(PREPARED)) {
        const name = statementName(text);
        if (this.names.has(name) || this.names.size < MAX_PREPARED_PER_CONNECTION) {
          this.names.add(name);
          return super.query({ name, text, values });
        }
      }
    }
    return Reflect.apply(pg.Client.prototype.query, this, args);
  }
}

function isBuffers(value: unknown): value is readonly Buffer[] {
  return Array.isArray(value) && value.every((v) => Buffer.isBuffer(v));
}

/** The protocol's CopyData message type. */
const COPY_DATA = 0x64;

interface CopyResult {
  readonly command: 'COPY';
  readonly rowCount: number | null;
  readonly rows: readonly never[];
}

/**
 * A `COPY … FROM STDIN` whose whole input is at hand, sent with its data in one write (no round
 * trip for the CopyInResponse) and queued as any `Query`, so it pipelines with the others.
 */
class CopyIn extends pg.Query {
  readonly done: Promise<CopyResult>;
  private resolve!: (result: CopyResult) => void;
  private reject!: (error: unknown) => void;
  private rowCount: number | null = null;

  constructor(
    private readonly statement: string,
    private readonly data: readonly Buffer[],
  ) {
    super(statement);
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  override submit = (connection: pg.Connection): void => {
    const { stream } = connection as unknown as {
      readonly stream: NodeJS.WritableStream & { cork(): void; uncork(): void };
    };
    stream.cork();
    connection.query(this.statement);
    for (const piece of this.data) {
      const header = Buffer.allocUnsafe(5);
      header[0] = COPY_DATA;
      header.writeUInt32BE(piece.length + 4, 1);
      stream.write(header);
      stream.write(piece);
    }
    (connection as unknown as { endCopyFrom(): void }).endCopyFrom();
    stream.uncork();
  };

  handleCopyInResponse(): void {
    // The data went out with the statement.
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)$/.exec(message.text ?? '');
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {
    this.resolve({ command: 'COPY', rowCount: this.rowCount, rows: [] });
  }

  handleError(error: unknown): void {
    this.reject(error);
  }
}
