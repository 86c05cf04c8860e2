import { sql, type Kysely } from 'kysely';

/**
 * Where a run's and a chunk's traces are found (issue 41, OpenTelemetry):
 * - `envdata.run.traceparent`: the W3C `traceparent` of the span that planned the run, so the
 *   enqueues made later (the feeder tops the queue up over time, on any host) link to it.
 * - `envdata.chunk.trace_id`: the trace of the chunk's last attempt (32 hex digits), set when an
 *   attempt claims it: `status RUN` and the console link a failed chunk to its trace.
 * Both stay null while tracing is off.
 *
 * Frozen in time: plain SQL, no app imports.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.run add column traceparent text;
    comment on column envdata.run.traceparent is
      'W3C traceparent of the span that planned the run (OpenTelemetry); null when tracing was off.';
    alter table envdata.chunk add column trace_id text;
    comment on column envdata.chunk.trace_id is
      'Trace id (32 hex digits) of the chunk''s last attempt (OpenTelemetry); null when tracing was off.';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table envdata.chunk drop column trace_id;
    alter table envdata.run drop column traceparent;
  `.execute(db);
}
