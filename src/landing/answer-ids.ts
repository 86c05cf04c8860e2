import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';

/** Ids one `nextval` of `envdata.answer_id_seq` gives (its increment, migration 0051). */
const BLOCK = 64;

/**
 * Answer ids for landings, known before their transaction (a landing's rows are encoded with
 * their answer as they are staged): each `nextval` of `envdata.answer_id_seq` gives this
 * process the 64 ids from the value it returns, so processes and hosts never share one, and a
 * landing costs one round trip per 64. Ids of a block not used are skipped, never reused.
 */
export class AnswerIds {
  private next = 0;
  private end = 0;
  private refill: Promise<void> | undefined;

  constructor(private readonly db: Kysely<Database>) {}

  async take(): Promise<number> {
    while (this.next >= this.end) {
      this.refill ??= this.fetchBlock().finally(() => (this.refill = undefined));
      await this.refill;
    }
    return this.next++;
  }

  private async fetchBlock(): Promise<void> {
    const { rows } = await sql<{ first: string }>`
      select nextval('envdata.answer_id_seq') as first`.execute(this.db);
    const first = Number(rows[0]!.first);
    this.next = first;
    this.end = first + BLOCK;
  }
}
