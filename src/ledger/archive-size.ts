import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** What the raw archive holds (`envdata status`). */
export interface ArchiveSize {
  /** Answers recorded (`envdata.answer`), their bodies kept or not. */
  readonly answers: number;
  /** Bodies kept, once per SHA-256 (`envdata.answer_body`). */
  readonly bodies: number;
  /** Bytes on disk of both tables, their indexes and TOAST (`pg_total_relation_size`). */
  readonly bytesOnDisk: number;
}

/** The archive's size now: answers, bodies and bytes on disk. */
export async function readArchiveSize(db: Kysely<Database>): Promise<ArchiveSize> {
  const { rows } = await sql<{ answers: string; bodies: string; bytes: string }>`
    select (select count(*) from envdata.answer)::text as answers,
      (select count(*) from envdata.answer_body)::text as bodies,
      (pg_total_relation_size('envdata.answer_body')
        + pg_total_relation_size('envdata.answer'))::text as bytes`.execute(db);
  const row = rows[0]!;
  return {
    answers: Number(row.answers),
    bodies: Number(row.bodies),
    bytesOnDisk: Number(row.bytes),
  };
}
