import type { QueryResult, Transaction } from 'kysely';
import { hasSqlState, isUniqueViolation, SQLSTATE } from '../errors/pg-errors.js';
import {
  changedGroups,
  factDigests,
  newFactsStatement,
  probeStatement,
  rowCount,
  upsertStatement,
  type FactWire,
  type ProbedGroup,
} from './fact-statements.js';
import type { FactRow } from './fact-rows.js';
import type { FactTableSpec } from './fact-table-spec.js';
import type { LocatedRows } from './located-rows.js';
import type { Database } from './schema.js';
import type { Compilable } from './wire/index.js';

/** How a batch of facts is written; `bench:upsert` measures what each earns (docs/scaling.md). */
export interface WriteTechniques extends FactWire {
  /** Groups stored exactly as they are (same count and digest) are not sent again. */
  readonly digest: boolean;
}

export const ALL_TECHNIQUES: WriteTechniques = Object.freeze({
  copy: true,
  digest: true,
});

/** One fact table of a batch, with its rows by location. */
export interface FactGroups {
  readonly spec: FactTableSpec<FactRow>;
  readonly groups: readonly LocatedRows<FactRow>[];
}

/** What the batch's transaction writes beside the facts (the ledger's statements). */
export interface AlongsideFacts {
  /** Sent in the first exchange: they need not know whether the facts changed. */
  readonly first: readonly Compilable[];
  /** Sent once it is known whether the facts changed. */
  readonly after: (factsChanged: boolean) => readonly Compilable[];
}

export interface WriteFactsOptions {
  /**
   * The ledger records none of the batch's hours as landed: the rows are inserted at once, with
   * no probe; a row stored after all fails the statement (`RowsStoredAlready`).
   */
  readonly assumeNew: boolean;
  readonly alongside?: AlongsideFacts;
  readonly techniques?: WriteTechniques;
}

const NOTHING_ALONGSIDE: AlongsideFacts = { first: [], after: () => [] };

/**
 * Writes the batch's facts in the open transaction `trx`, as `INSERT … ON CONFLICT DO UPDATE …
 * WHERE … IS DISTINCT FROM` would (identical rows neither rewritten nor locked), with the
 * statements `alongside` on the same connection: every statement of an exchange goes out at
 * once (the pool pipelines a connection's queries). Rows believed new go in one exchange; others
 * in two: the probes, then the upserts of the groups not stored as they are. Returns the rows
 * inserted or changed, by table.
 */
export function writeFacts(
  trx: Transaction<Database>,
  tables: readonly FactGroups[],
  options: WriteFactsOptions,
): Promise<number[]> {
  const alongside = options.alongside ?? NOTHING_ALONGSIDE;
  const techniques = options.techniques ?? ALL_TECHNIQUES;
  const batch = tables.map((t) => ({ ...t, groups: t.groups.filter((g) => g.rows.length > 0) }));
  const facts = batch.filter((t) => t.groups.length > 0);
  const counts = (written: ReadonlyMap<FactGroups, number>) =>
    batch.map((t) => written.get(t) ?? 0);
  return onConnection(trx, async (send) => {
    if (options.assumeNew) {
      const sent = settle(facts.map((t) => send(newFactsStatement(t.spec, t.groups, techniques))));
      const changed = facts.length > 0;
      const rest = settle([...alongside.first, ...alongside.after(changed)].map(send));
      throwFirstFailure(await sent, await rest, (k) => facts[k]?.spec.table);
      return counts(new Map(facts.map((t) => [t, rowCount(t.groups)])));
    }
    // The groups to upsert: all of them, or those the probes find not stored as they are.
    let toWrite: readonly LocatedRows<FactRow>[][] = facts.map((t) => t.groups);
    let first = settle(alongside.first.map(send));
    if (techniques.digest) {
      const probes = settle(facts.map((t) => send(probeStatement(t.spec, t.groups))));
      // The server reads the stored rows' digests while this process computes the batch's.
      const digests = facts.map((t) => factDigests(t.spec, t.groups));
      const probed = await probes;
      throwFirstFailure(probed, await first, () => undefined);
      first = settle([]);
      toWrite = facts.map((t, k) =>
        changedGroups(t.groups, fulfilled<QueryResult<ProbedGroup>>(probed[k]).rows, digests[k]!),
      );
    }
    const upserts = settle(
      facts.map((t, k) =>
        toWrite[k]!.length > 0 ? send(upsertStatement(t.spec, toWrite[k]!)) : undefined,
      ),
    );
    // Known before the upserts answer when the probes ran: the ledger goes out with them.
    const known = techniques.digest ? toWrite.some((g) => g.length > 0) : undefined;
    const rest = settle(known === undefined ? [] : alongside.after(known).map(send));
    const written = await upserts;
    throwFirstFailure(written, [...(await first), ...(await rest)], () => undefined);
    const byTable = facts.map((t, k) => {
      const result = fulfilled<QueryResult<unknown> | undefined>(written[k]);
      return [t, Number(result?.numAffectedRows ?? 0n)] as const;
    });
    if (known === undefined) {
      const after = settle(alongside.after(byTable.some(([, n]) => n > 0)).map(send));
      throwFirstFailure([], await after, () => undefined);
    }
    return counts(new Map(byTable));
  });
}

/**
 * Thrown by `writeFacts` with `assumeNew` when some of the rows are stored after all (a
 * concurrent landing of the same chunk, facts the ledger does not know of): the transaction is
 * aborted; run it again without the hint.
 */
export class RowsStoredAlready extends Error {
  constructor(table: string, cause: unknown) {
    super(`${table}: rows assumed new are stored already; land again without the hint`, {
      cause,
    });
    this.name = 'RowsStoredAlready';
  }
}

type Send = (statement: Compilable) => Promise<QueryResult<unknown>>;

/**
 * Runs `use` with the transaction's connection to itself: what it sends goes out at once, in
 * line, rather than each statement after the answer to the one before, as Kysely sends a
 * transaction's statements.
 */
function onConnection<T>(trx: Transaction<Database>, use: (send: Send) => Promise<T>): Promise<T> {
  return trx
    .getExecutor()
    .provideConnection((connection) =>
      use((statement) => connection.executeQuery(statement.compile(trx))),
    );
}

/** Every promise's outcome, a handler attached at once (`undefined`: nothing sent). */
function settle<T>(
  promises: readonly (Promise<T> | undefined)[],
): Promise<PromiseSettledResult<T | undefined>[]> {
  return Promise.allSettled(promises.map((p) => p ?? Promise.resolve(undefined)));
}

function fulfilled<T>(outcome: PromiseSettledResult<unknown> | undefined): T {
  return (outcome as PromiseFulfilledResult<T>).value;
}

/**
 * Throws the first failure of statements sent in line (`facts`, then `rest`): statements behind
 * a failure fail "in a failed transaction", so the first other failure is the cause. A unique
 * violation of a fact statement (`factTable(k)` names its table) is `RowsStoredAlready`.
 */
function throwFirstFailure(
  facts: readonly PromiseSettledResult<unknown>[],
  rest: readonly PromiseSettledResult<unknown>[],
  factTable: (k: number) => string | undefined,
): void {
  const failures = [...facts, ...rest].flatMap((o, k) =>
    o.status === 'rejected' ? [{ k, error: o.reason as unknown }] : [],
  );
  const first =
    failures.find((f) => !hasSqlState(f.error, SQLSTATE.inFailedSqlTransaction)) ?? failures[0];
  if (!first) return;
  const table = first.k < facts.length ? factTable(first.k) : undefined;
  if (table && isUniqueViolation(first.error)) throw new RowsStoredAlready(table, first.error);
  throw first.error;
}
