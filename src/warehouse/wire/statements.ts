import type { CompiledQuery, QueryExecutorProvider, QueryResult, RawBuilder } from 'kysely';

/**
 * A compiled query as `WireConnection` runs it: plain, prepared under `statementName`, or a COPY
 * with its input `copyData`.
 */
export interface WireQuery<R = unknown> extends CompiledQuery<R> {
  readonly statementName?: string;
  readonly copyData?: readonly Buffer[];
}

/** A statement as the wire runs it (`named`, `copyIn`), run on `db`'s connection. */
export interface Statement<R> {
  /** Its prepared name (`envdata_…`), when it has one: what a landing's span lists. */
  readonly name?: string;
  execute(db: QueryExecutorProvider): Promise<QueryResult<R>>;
}

/**
 * `statement`, prepared once per connection under `name` and run by name after (parse and plan
 * skipped), unless the database was created with prepared statements off. The text behind one
 * name must never vary: values as parameters only, no list whose length follows the input.
 *
 * @example await named('claim_chunk', sql`update envdata.chunk … where chunk_id = ${id}`).execute(trx);
 */
export function named<R>(name: string, statement: RawBuilder<R>): Statement<R> {
  return wireStatement(statement, { statementName: `envdata_${name}` });
}

/**
 * `statement`, a `COPY … FROM STDIN (FORMAT binary)`, with its input `data` (the pieces in order,
 * sent as they are, none copied). Its result has no `numAffectedRows`: the caller knows the rows
 * it sent.
 *
 * @example await copyIn(sql`copy envdata.weather_hourly (…) from stdin (format binary)`, pieces).execute(trx);
 */
export function copyIn(
  statement: RawBuilder<unknown>,
  data: readonly Buffer[],
): Statement<unknown> {
  return wireStatement(statement, { copyData: data });
}

function wireStatement<R>(
  statement: RawBuilder<R>,
  extra: Pick<WireQuery, 'statementName' | 'copyData'>,
): Statement<R> {
  const compile = (db: QueryExecutorProvider): WireQuery<R> => ({
    ...statement.compile(db),
    ...extra,
  });
  return {
    ...(extra.statementName !== undefined && { name: extra.statementName }),
    execute: (db) =>
      db.getExecutor().provideConnection((connection) => connection.executeQuery(compile(db))),
  };
}
