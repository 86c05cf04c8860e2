import { sql, type Kysely } from 'kysely';
import type { Database } from '../warehouse/schema.js';
import {
  serviceRefusalPeriod,
  type QuotaCaps,
  type QuotaCounter,
  type QuotaPeriods,
  type QuotaTake,
  type ServiceRefusals,
} from './quota-counter.js';

/**
 * The quota and budget counters as rows of `envdata.quota_usage` (migration 0027), on either
 * queue backend (`admissionStores`): they count money, and Redis may lose its keys.
 *
 * A take is one statement: it locks the day's and the month's rows, the day's first (every taker
 * in the same order: else two of them, each holding one row, deadlock), checks both caps and
 * counts in both or neither: workers on several hosts queue on the row locks and never both take
 * the last call. The first take of a period finds a row missing, makes both and takes again.
 * A refusal by the service keeps the count it found in a row of its own (period
 * `2026-11-26:refused-by-service`), so `status` shows what envdata had counted, not the cap.
 *
 * The statement commits as every other does, waiting for its WAL to reach the disk: the count is
 * money spent at the provider, and a crash of Postgres must not forget it (a `synchronous_commit`
 * off for it alone halved its cost in `npm run bench:quota`, at the price of the counts of the last
 * fraction of a second on such a crash: refused, the promise is never above the quota).
 */
export class PostgresQuotaCounter implements QuotaCounter {
  constructor(private readonly db: () => Kysely<Database>) {}

  async take(periods: QuotaPeriods, caps: QuotaCaps): Promise<QuotaTake> {
    const db = this.db();
    for (;;) {
      const { rows } = await sql<{
        found: number;
        granted: boolean;
        day_used: number;
        month_used: number;
      }>`
        with cur as (
          select quota_window, used from envdata.quota_usage
          where (quota_window = 'day' and period = ${periods.day})
             or (quota_window = 'month' and period = ${periods.month})
          order by quota_window
          for update
        ), used as (
          select count(*)::int as found,
                 coalesce(max(used) filter (where quota_window = 'day'), 0) as day_used,
                 coalesce(max(used) filter (where quota_window = 'month'), 0) as month_used
          from cur
        ), ok as (
          select found, found = 2 and day_used < ${caps.day} and month_used < ${caps.month}
                   as granted,
                 day_used, month_used
          from used
        ), counted as (
          update envdata.quota_usage q set used = q.used + 1
          from ok
          where ok.granted
            and ((q.quota_window = 'day' and q.period = ${periods.day})
              or (q.quota_window = 'month' and q.period = ${periods.month}))
          returning q.quota_window
        )
        select ok.found, ok.granted,
               ok.day_used + (select count(*) from counted where quota_window = 'day')::int
                 as day_used,
               ok.month_used + (select count(*) from counted where quota_window = 'month')::int
                 as month_used
        from ok`.execute(db);
      const row = rows[0]!;
      if (row.found < 2) {
        await this.open(periods);
        continue;
      }
      const dayUsed = Number(row.day_used);
      const monthUsed = Number(row.month_used);
      return {
        granted: row.granted,
        refusedBy: row.granted ? undefined : dayUsed >= caps.day ? 'day' : 'month',
        dayUsed,
        monthUsed,
      };
    }
  }

  /** Makes the day's and the month's rows (the first call of a period), and forgets expired ones. */
  private async open(periods: QuotaPeriods): Promise<void> {
    const db = this.db();
    const { rows: made } = await sql<{ period: string }>`
      insert into envdata.quota_usage as q (quota_window, period, used, expires_at)
      values ('day', ${periods.day}, 0, now() + make_interval(secs => ${periods.dayKeepMs} / 1000.0)),
             ('month', ${periods.month}, 0,
              now() + make_interval(secs => ${periods.monthKeepMs} / 1000.0))
      on conflict (quota_window, period) do nothing
      returning q.period`.execute(db);
    if (made.length > 0) {
      await sql`delete from envdata.quota_usage where expires_at < now()`.execute(db);
    }
  }

  async spend(periods: QuotaPeriods, window: 'day' | 'month', cap: number): Promise<void> {
    const period = window === 'day' ? periods.day : periods.month;
    const keepMs = window === 'day' ? periods.dayKeepMs : periods.monthKeepMs;
    const expires = sql`now() + make_interval(secs => ${keepMs} / 1000.0)`;
    await sql`
      with counted as (
        insert into envdata.quota_usage (quota_window, period, used, expires_at)
        select ${window}, ${serviceRefusalPeriod(period)},
               coalesce((select used from envdata.quota_usage
                         where quota_window = ${window} and period = ${period}), 0),
               ${expires}
        on conflict (quota_window, period) do nothing)
      insert into envdata.quota_usage as q (quota_window, period, used, expires_at)
      values (${window}, ${period}, ${cap}, ${expires})
      on conflict (quota_window, period) do update set used = greatest(q.used, excluded.used)
    `.execute(this.db());
  }

  async refusals(periods: QuotaPeriods): Promise<ServiceRefusals> {
    const day = serviceRefusalPeriod(periods.day);
    const month = serviceRefusalPeriod(periods.month);
    const { rows } = await sql<{ quota_window: 'day' | 'month'; used: number }>`
      select quota_window, used from envdata.quota_usage
      where (quota_window = 'day' and period = ${day})
         or (quota_window = 'month' and period = ${month})`.execute(this.db());
    const found: { day?: number; month?: number } = {};
    for (const row of rows) found[row.quota_window] = Number(row.used);
    return found;
  }

  async used(periods: QuotaPeriods): Promise<{ day: number; month: number }> {
    const { rows } = await sql<{ day: number | null; month: number | null }>`
      select max(used) filter (where quota_window = 'day' and period = ${periods.day}) as day,
             max(used) filter (where quota_window = 'month' and period = ${periods.month}) as month
      from envdata.quota_usage`.execute(this.db());
    return { day: Number(rows[0]?.day ?? 0), month: Number(rows[0]?.month ?? 0) };
  }
}
