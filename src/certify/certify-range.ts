import type { KeyObject } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Location } from '../locations/location.js';
import type { Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import { CANONICAL_FORM } from './canonical-form.js';
import {
  COMPLETENESS_PREDICATE,
  STATEMENT_TYPE,
  subjectName,
  type CompletenessStatement,
  type HourStatus,
} from './completeness-statement.js';
import { IN_TOTO_PAYLOAD_TYPE, signEnvelope, type DsseEnvelope } from './dsse.js';
import { finishRanges, HourRanges, type AnswerOrigin } from './hour-ranges.js';
import { hourIso, readCanonicalHours } from './read-canonical-hours.js';
import { RowsDigest } from './rows-digest.js';

export interface CertifyRequest {
  readonly dataset: Dataset;
  readonly location: Location;
  /** [from, to): whole UTC hours. */
  readonly from: Date;
  readonly to: Date;
  readonly privateKey: KeyObject;
  readonly envdataVersion: string;
  /** The service's host (`new URL(baseUrl).host`). */
  readonly sourceHost: string;
  /** Receives each hour's canonical lines in order (`--rows-out`). */
  readonly onHour?: (lines: readonly string[]) => Promise<void> | void;
  readonly now?: Date;
}

export interface Certificate {
  readonly envelope: DsseEnvelope;
  readonly statement: CompletenessStatement;
}

const HOUR_MS = 3_600_000;

/**
 * Certifies the rows of one location, dataset and range: reads the ledger's status of every
 * hour and the canonical rows in one read-only snapshot, digests them, and signs the in-toto
 * Statement (docs/provenance.md, "Certificates") into a DSSE envelope with the Ed25519 key.
 * An incomplete range is certified as it is: its ranges say which hours are not landed.
 */
export async function certifyRange(
  db: Kysely<Database>,
  request: CertifyRequest,
): Promise<Certificate> {
  const { dataset, location, from, to } = request;
  const predicate = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      await sql`set local extra_float_digits = 1`.execute(trx);
      const statuses = await readStatuses(trx, dataset, location.locationId, from, to);
      const digest = new RowsDigest();
      const ranges = new HourRanges();
      for await (const hour of readCanonicalHours(trx, {
        dataset,
        locationId: location.locationId,
        from,
        to,
      })) {
        digest.addHour(hour.lines);
        await request.onHour?.(hour.lines);
        const end = hourIso(Date.parse(hour.hour) + HOUR_MS);
        ranges.add(hour, statuses.get(hour.hour) ?? 'outside_history', end);
      }
      const answerIds = [...new Set(ranges.ranges.flatMap((r) => [...r.answerIds]))];
      const answers = await readAnswers(trx, answerIds);
      const reasons = await readQuarantineReasons(trx, dataset, location.locationId, from, to);
      const rows = digest.result();
      return {
        rows,
        ranges: finishRanges(ranges.ranges, answers, (f, t) => [
          ...new Set(reasons.filter((q) => q.hour >= f && q.hour < t).map((q) => q.reason)),
        ]),
      };
    });
  const fromIso = hourIso(from.getTime());
  const toIso = hourIso(to.getTime());
  const statement: CompletenessStatement = {
    _type: STATEMENT_TYPE,
    subject: [
      {
        name: subjectName(dataset, location.locationId, fromIso, toIso),
        digest: { sha256: predicate.rows.sha256 },
      },
    ],
    predicateType: COMPLETENESS_PREDICATE,
    predicate: {
      envdata: { version: request.envdataVersion },
      source: { host: request.sourceHost },
      location: {
        id: location.locationId,
        name: location.name,
        lat: location.lat,
        lng: location.lng,
        timezone: location.timezone,
      },
      dataset,
      from: fromIso,
      to: toIso,
      canonicalForm: CANONICAL_FORM,
      rowCount: predicate.rows.rowCount,
      hourCount: predicate.rows.hourCount,
      complete: predicate.ranges.every((r) => r.status === 'landed'),
      hourDigests: predicate.rows.hourDigests,
      ranges: predicate.ranges,
      generatedAt: (request.now ?? new Date()).toISOString(),
    },
  };
  const body = Buffer.from(JSON.stringify(statement), 'utf8');
  return { envelope: signEnvelope(IN_TOTO_PAYLOAD_TYPE, body, request.privateKey), statement };
}

/** analytics.hour_status of the range, by hour. */
async function readStatuses(
  trx: Transaction<Database>,
  dataset: Dataset,
  locationId: number,
  from: Date,
  to: Date,
): Promise<Map<string, HourStatus>> {
  const { rows } = await sql<{ hour: string; status: HourStatus }>`
    select to_char(observed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as hour, status
    from analytics.hour_status(${dataset}, ${locationId}, ${from}, ${to})`.execute(trx);
  return new Map(rows.map((r) => [r.hour, r.status]));
}

/** The run and body digest of each answer. */
async function readAnswers(
  trx: Transaction<Database>,
  ids: readonly string[],
): Promise<Map<string, AnswerOrigin>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ answer_id: string; run_id: number | null; sha: string }>`
    select answer_id::text, run_id, encode(body_sha256, 'hex') as sha
    from envdata.answer where answer_id = any(${ids}::bigint[])`.execute(trx);
  return new Map(rows.map((r) => [r.answer_id, { runId: r.run_id, bodySha256: r.sha }]));
}

/** The reasons records of the range's hours were refused for, by hour. */
async function readQuarantineReasons(
  trx: Transaction<Database>,
  dataset: Dataset,
  locationId: number,
  from: Date,
  to: Date,
): Promise<{ hour: string; reason: string }[]> {
  const { rows } = await sql<{ hour: string; reason: string }>`
    select distinct to_char(date_trunc('hour', observed_at at time zone 'UTC'),
        'YYYY-MM-DD"T"HH24:MI:SS"Z"') as hour, reason
    from envdata.quarantine
    where location_id = ${locationId} and source = ${`${dataset}_history`}
      and observed_at >= ${from} and observed_at < ${to}
    order by hour, reason`.execute(trx);
  return rows;
}
