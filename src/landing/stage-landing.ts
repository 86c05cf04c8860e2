import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import {
  decideLanding,
  type ChunkLanding,
  type LandingDecision,
} from '../ledger/landing-decision.js';
import type { LandingAnswer } from '../ledger/record-landings.js';
import type { FactRow } from '../warehouse/fact-rows.js';
import type { FactTable, WriteContext } from '../warehouse/fact-table.js';
import type { FactTableSpec } from '../warehouse/fact-table-spec.js';
import type { StagedRows } from '../warehouse/located-rows.js';
import { stageRows } from '../warehouse/wire/index.js';
import type { AnswerIds } from './answer-ids.js';

/** The answer a landing came from, made before its transaction (`envdata.answer`). */
export interface StagedAnswer {
  /** Taken from `AnswerIds`: the source each row it writes keeps. */
  readonly answerId: number;
  /** SHA-256 of the body as received. */
  readonly digest: Buffer;
  /** The body, gzip-compressed, when the archive keeps bodies and the landing brings one. */
  readonly gzipped: Buffer | undefined;
  readonly bodyBytes: number;
  readonly endpoint: string | undefined;
}

/**
 * A landing ready for its transaction: what the ledger decided of it, its rows encoded as their
 * tables send them, and the answer it came from (`undefined` for a landing with no body).
 */
export interface StagedLanding extends ChunkLanding {
  readonly decision: LandingDecision;
  /**
   * By table of `facts.tables`, in its order: the rows staged; `undefined` for a table whose
   * columns need a lookup first (`FactTable.prepare`): its rows are encoded when written.
   */
  readonly encoded: readonly (StagedRows | undefined)[];
  readonly answer: StagedAnswer | undefined;
}

/**
 * Does, as a landing arrives, what needs no transaction (the ledger's decision, its answer's id,
 * digest and compressed body, its rows encoded with that answer), so none of it lengthens a
 * landing transaction. A rebuild re-lands an archived answer as a new one of the same body.
 */
export async function stageLanding(
  landing: ChunkLanding,
  options: {
    readonly archiveRaw: boolean;
    readonly context: WriteContext;
    readonly answerIds: AnswerIds;
  },
): Promise<StagedLanding> {
  const answer = await answerOf(landing, options);
  const encoded = landing.facts.tables.map(({ table, rows }) =>
    table.prepare
      ? undefined
      : stageRows(
          specOf(table, options.context),
          landing.locationId,
          rows,
          answer?.answerId ?? null,
        ),
  );
  return { ...landing, decision: decideLanding(landing), encoded, answer };
}

async function answerOf(
  landing: ChunkLanding,
  options: { readonly archiveRaw: boolean; readonly answerIds: AnswerIds },
): Promise<StagedAnswer | undefined> {
  const { rawBody, archived } = landing;
  if (archived !== undefined) {
    const answerId = await options.answerIds.take();
    return { answerId, ...archived, gzipped: undefined };
  }
  if (rawBody === undefined || landing.rebuild) return undefined;
  const answerId = await options.answerIds.take();
  const digest = createHash('sha256').update(rawBody).digest();
  const gzipped = options.archiveRaw ? await gzipAsync(rawBody) : undefined;
  const bodyBytes = Buffer.byteLength(rawBody);
  return { answerId, digest, gzipped, bodyBytes, endpoint: landing.endpoint };
}

const gzipAsync = promisify(gzip);

/**
 * Each landing's answer as the ledger records it, by landing index; a body the archive holds
 * already (`stored`, hex SHA-256s) or sent earlier in the batch goes without its bytes; an
 * answer whose body some answer has already (`known`) is marked so.
 */
export function answersOf(
  landings: readonly StagedLanding[],
  stored: ReadonlySet<string>,
  known: ReadonlySet<string>,
): ReadonlyMap<number, LandingAnswer> {
  const sent = new Set(stored);
  const entries = new Map<number, LandingAnswer>();
  landings.forEach((landing, index) => {
    const { answer } = landing;
    if (answer === undefined) return;
    const hex = answer.digest.toString('hex');
    const body = answer.gzipped !== undefined && !sent.has(hex) ? answer.gzipped : undefined;
    if (body !== undefined) sent.add(hex);
    entries.set(index, {
      answerId: answer.answerId,
      fetchedAt: landing.startedAt,
      httpStatus: landing.httpStatus,
      digest: answer.digest,
      body,
      bodyBytes: answer.bodyBytes,
      endpoint: answer.endpoint,
      known: known.has(hex),
    });
  });
  return entries;
}

/** The SHA-256s of the answers of `landings`. */
export function answerDigests(landings: readonly StagedLanding[]): Buffer[] {
  return landings.flatMap((l) => (l.answer ? [l.answer.digest] : []));
}

/** The SHA-256s of the bodies `landings` would archive. */
export function bodyDigests(landings: readonly StagedLanding[]): Buffer[] {
  return landings.flatMap((l) => (l.answer?.gzipped !== undefined ? [l.answer.digest] : []));
}

/** `table`'s columns, for the rows it holds. */
export function specOf(table: FactTable<FactRow>, context: WriteContext): FactTableSpec<FactRow> {
  return table.spec(context) as FactTableSpec<FactRow>;
}
