import { sql, type Kysely } from 'kysely';

/**
 * Runs can be paused (`envdata pause RUN`, Ctrl-C under `--wait`) and cancelled (`envdata cancel
 * RUN`): a paused run keeps its plan and waits for `envdata resume RUN`; a cancelled one drops
 * what it had not fetched and ends, keeping what landed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.run drop constraint run_status_check,
      add constraint run_status_check check (status in
        ('planning', 'running', 'paused', 'done', 'failed', 'stopped', 'cancelled'));
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    update envdata.run set status = 'stopped' where status = 'paused';
    update envdata.run set status = 'failed' where status = 'cancelled';
    alter table envdata.run drop constraint run_status_check,
      add constraint run_status_check check (status in
        ('planning', 'running', 'done', 'failed', 'stopped'));
  `.execute(db);
}
