-- Schema snapshot of a freshly migrated envdata warehouse (schemas analytics and envdata),
-- described from the PostgreSQL catalogs. Generated: do not edit. After adding a migration,
-- regenerate it with `npm run schema:snapshot` and commit it with the migration;
-- test/warehouse/schema-snapshot.test.ts fails while it differs. For review, not for running.

-- Migrations
--   2026_11_22_0001_create_schemas
--   2026_11_22_0002_create_warehouse
--   2026_11_22_0003_create_ledger
--   2026_11_22_0004_create_snapshots_and_rollups
--   2026_11_22_0005_create_analytics
--   2026_11_22_0006_create_run_gaps
--   2026_11_22_0007_location_retired
--   2026_11_22_0008_create_sync
--   2026_11_22_0009_deterministic_rollups
--   2026_11_22_0010_coverage_ledger
--   2026_11_22_0011_bi_role_hardening
--   2026_11_22_0012_run_pause_cancel
--   2026_11_22_0013_call_budget
--   2026_11_22_0014_raw_payload_digest
--   2026_11_23_0015_api_call_minute
--   2026_11_23_0016_call_pace
--   2026_11_23_0017_rollup_date_indexes
--   2026_11_23_0018_history_window
--   2026_11_23_0019_forecast_accuracy_rollup
--   2026_11_23_0020_pollen_type_statistics
--   2026_11_26_0021_share_unit
--   2026_11_26_0022_fence_lock_functions
--   2026_11_26_0023_location_name_keys_and_aliases
--   2026_11_26_0024_no_data_recheck
--   2026_11_26_0025_unplaceable_records
--   2026_11_26_0026_settled_chunks
--   2026_11_26_0027_quota_usage
--   2026_11_27_0031_notifications
--   2026_11_27_0032_worker_heartbeat
--   2026_11_27_0033_bi_forecast_and_status_views
--   2026_11_27_0034_analytics_column_comments
--   2026_11_27_0036_snapshot_partitions
--   2026_11_27_0037_bi_freshness_view
--   2026_11_27_0038_declared_state
--   2026_11_27_0039_latest_stamped_at_fetch
--   2026_11_27_0040_current_snapshots
--   2026_11_28_0041_share_unit_per_field
--   2026_11_28_0042_upstream_shape
--   2026_11_28_0043_drift_policy
--   2026_11_28_0045_one_location_key_lock
--   2026_11_28_0046_attach_partitions
--   2026_11_28_0047_one_definition_of_fresh
--   2026_11_28_0048_analytics_view_comments
--   2026_11_28_0049_declared_history
--   2026_11_28_0050_folded_missing_chunks
--   2026_11_29_0051_provenance
--   2026_11_29_0053_reread_hours
--   2026_11_29_0054_trace_context
--   2026_11_29_0055_lineage
--   2026_11_29_0056_export_marks

create schema analytics;
grant USAGE on schema analytics to envdata_bi;
create schema envdata;

create type envdata.chunk_status as enum ('pending', 'queued', 'running', 'done', 'failed', 'split');

create type envdata.dataset as enum ('pollen', 'weather');

create type envdata.pollen_region as enum ('europe', 'north_america', 'australia_qld_nt', 'australia_nz_rest', 'south_america_oceania', 'rest_of_world');

create type envdata.pollen_type as enum ('tree', 'grass', 'weed');

create type envdata.risk_level as enum ('Low', 'Moderate', 'High', 'Very High');

create type envdata.snapshot_product as enum ('latest', 'forecast_48h', 'forecast_120h', 'forecast_72h');

create type envdata.species_category as enum ('tree', 'grass', 'weed', 'other');

create type envdata.weather_icon as enum ('cloudy', 'partly-cloudy', 'clear', 'snow', 'rain', 'fog');

create sequence envdata.answer_id_seq;

create table envdata.alert_state (
  alert text not null,
  active boolean not null default false,
  changes integer not null default 0,
  changed_at timestamp with time zone not null default now()
);
alter table envdata.alert_state add constraint alert_state_pkey PRIMARY KEY (alert);

create table envdata.answer (
  answer_id bigint not null,
  chunk_id bigint,
  run_id integer,
  location_id integer not null,
  dataset envdata.dataset not null,
  window_from timestamp with time zone not null,
  window_to timestamp with time zone not null,
  endpoint text,
  http_status smallint not null,
  fetched_at timestamp with time zone not null,
  landed_at timestamp with time zone not null default now(),
  body_sha256 bytea not null
);
alter table envdata.answer add constraint answer_body_sha256_check CHECK (octet_length(body_sha256) = 32);
alter table envdata.answer add constraint answer_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.answer add constraint answer_pkey PRIMARY KEY (answer_id);
alter table envdata.answer add constraint answer_run_id_fkey FOREIGN KEY (run_id) REFERENCES envdata.run(run_id) ON DELETE SET NULL;
CREATE INDEX answer_body_sha256 ON envdata.answer USING btree (body_sha256);
CREATE INDEX answer_chunk ON envdata.answer USING btree (chunk_id, answer_id);
CREATE INDEX answer_replay ON envdata.answer USING btree (dataset, location_id, window_from);
CREATE INDEX answer_run ON envdata.answer USING btree (run_id);
comment on table envdata.answer is 'Each answer that landed anything: what was asked, when it was fetched and landed, and the SHA-256 of its body (kept in answer_body while the archive keeps it).';

create table envdata.answer_body (
  body_sha256 bytea not null,
  encoding text not null default 'gzip'::text,
  body bytea not null,
  body_bytes integer not null,
  stored_at timestamp with time zone not null default now()
);
alter table envdata.answer_body add constraint answer_body_body_sha256_check CHECK (octet_length(body_sha256) = 32);
alter table envdata.answer_body add constraint answer_body_encoding_check CHECK (encoding = 'gzip'::text);
alter table envdata.answer_body add constraint answer_body_pkey PRIMARY KEY (body_sha256);
CREATE INDEX answer_body_stored_at ON envdata.answer_body USING btree (stored_at, body_sha256);
comment on table envdata.answer_body is 'Each answer body the archive keeps, once per SHA-256 of the body as received (gzip).';

create table envdata.api_call_minute (
  minute timestamp with time zone not null,
  endpoint text not null,
  calls integer not null default 0,
  throttled integer not null default 0,
  failed integer not null default 0
);
alter table envdata.api_call_minute add constraint api_call_minute_calls_check CHECK (calls >= 0);
alter table envdata.api_call_minute add constraint api_call_minute_failed_check CHECK (failed >= 0);
alter table envdata.api_call_minute add constraint api_call_minute_minute_check CHECK (date_trunc('minute'::text, minute) = minute);
alter table envdata.api_call_minute add constraint api_call_minute_pkey PRIMARY KEY (minute, endpoint);
alter table envdata.api_call_minute add constraint api_call_minute_throttled_check CHECK (throttled >= 0);

create table envdata.call_budget (
  duration_ms bigint not null,
  window_index bigint not null,
  used integer not null,
  expires_at timestamp with time zone not null
);
alter table envdata.call_budget add constraint call_budget_duration_ms_check CHECK (duration_ms > 0);
alter table envdata.call_budget add constraint call_budget_pkey PRIMARY KEY (duration_ms, window_index);
alter table envdata.call_budget add constraint call_budget_used_check CHECK (used > 0);

create table envdata.call_pace (
  rule text not null,
  slots bigint[] not null,
  expires_at timestamp with time zone not null
);
alter table envdata.call_pace add constraint call_pace_pkey PRIMARY KEY (rule);

create table envdata.chunk (
  chunk_id bigint not null generated always as identity,
  run_id integer,
  dataset envdata.dataset not null,
  location_id integer not null,
  window_from timestamp with time zone not null,
  window_to timestamp with time zone not null,
  status envdata.chunk_status not null default 'pending'::envdata.chunk_status,
  outcome text,
  attempts integer not null default 0,
  calls integer not null default 0,
  rows_landed integer not null default 0,
  rows_quarantined integer not null default 0,
  error_code text,
  error_message text,
  parent_chunk_id bigint,
  created_at timestamp with time zone not null default now(),
  started_at timestamp with time zone,
  finished_at timestamp with time zone,
  refetches integer not null default 0,
  missing_hours integer not null default 0,
  quarantined_hours integer not null default 0,
  not_covered_hours integer not null default 0,
  no_data_hours integer not null default 0,
  reread_hours integer not null default 0,
  trace_id text
);
alter table envdata.chunk add constraint chunk_check CHECK (window_from < window_to);
alter table envdata.chunk add constraint chunk_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.chunk add constraint chunk_outcome_check CHECK (outcome = ANY (ARRAY['rows'::text, 'no_data'::text, 'not_covered'::text, 'settled'::text]));
alter table envdata.chunk add constraint chunk_pkey PRIMARY KEY (chunk_id);
alter table envdata.chunk add constraint chunk_run_id_fkey FOREIGN KEY (run_id) REFERENCES envdata.run(run_id) ON DELETE SET NULL;
CREATE INDEX chunk_open ON envdata.chunk USING btree (dataset, location_id, window_from) WHERE ((status <> 'done'::envdata.chunk_status) AND (status <> 'split'::envdata.chunk_status));
CREATE INDEX chunk_run_status ON envdata.chunk USING btree (run_id, status);
CREATE UNIQUE INDEX chunk_run_window ON envdata.chunk USING btree (run_id, dataset, location_id, window_from, window_to);
CREATE INDEX chunk_undispatched ON envdata.chunk USING btree (run_id, chunk_id) WHERE (status = ANY (ARRAY['pending'::envdata.chunk_status, 'queued'::envdata.chunk_status, 'running'::envdata.chunk_status]));
comment on column envdata.chunk.reread_hours is 'Hours its landings brought that had landed before (coverage), counted once per landing: what its run re-read.';
comment on column envdata.chunk.trace_id is 'Trace id (32 hex digits) of the chunk''s last attempt (OpenTelemetry); null when tracing was off.';

create table envdata.coverage (
  location_id integer not null,
  dataset envdata.dataset not null,
  landed tstzmultirange not null default '{}'::tstzmultirange,
  no_data tstzmultirange not null default '{}'::tstzmultirange,
  updated_at timestamp with time zone not null default now()
);
alter table envdata.coverage add constraint coverage_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.coverage add constraint coverage_pkey PRIMARY KEY (location_id, dataset);

create table envdata.coverage_hole (
  location_id integer not null,
  dataset envdata.dataset not null,
  hours tstzrange not null,
  cause text not null,
  run_id integer,
  checked_at timestamp with time zone not null default now()
);
alter table envdata.coverage_hole add constraint coverage_hole_cause_check CHECK (cause = ANY (ARRAY['missing_upstream'::text, 'quarantined'::text, 'not_covered'::text, 'no_data'::text]));
alter table envdata.coverage_hole add constraint coverage_hole_hours_check CHECK (NOT isempty(hours));
alter table envdata.coverage_hole add constraint coverage_hole_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.coverage_hole add constraint coverage_hole_run_id_fkey FOREIGN KEY (run_id) REFERENCES envdata.run(run_id) ON DELETE SET NULL;
CREATE INDEX coverage_hole_key ON envdata.coverage_hole USING btree (location_id, dataset);
CREATE INDEX coverage_hole_run ON envdata.coverage_hole USING btree (run_id);

create table envdata.current_fetch (
  location_id integer not null,
  dataset envdata.dataset not null,
  product envdata.snapshot_product not null,
  fetched_at timestamp with time zone not null
);
alter table envdata.current_fetch add constraint current_fetch_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.current_fetch add constraint current_fetch_pkey PRIMARY KEY (location_id, dataset, product);
comment on table envdata.current_fetch is 'Per location, dataset and product, the fetched_at of the newest snapshot stored: the one the forecast and latest views show (copied in envdata.*_snapshot_current).';

create table envdata.declared_history (
  dataset envdata.dataset not null,
  since text not null,
  groups jsonb not null default '{}'::jsonb,
  declared_at timestamp with time zone not null default now()
);
alter table envdata.declared_history add constraint declared_history_groups_check CHECK (jsonb_typeof(groups) = 'object'::text);
alter table envdata.declared_history add constraint declared_history_pkey PRIMARY KEY (dataset);
alter table envdata.declared_history add constraint declared_history_since_check CHECK (length(since) > 0);
comment on table envdata.declared_history is 'Per dataset of the envdata.yaml last applied: its since as written and each group''s (envdata export-config writes them back).';

create table envdata.drift_policy (
  dataset envdata.dataset not null,
  policy text not null,
  declared_at timestamp with time zone not null default now()
);
alter table envdata.drift_policy add constraint drift_policy_pkey PRIMARY KEY (dataset);
alter table envdata.drift_policy add constraint drift_policy_policy_check CHECK (policy = ANY (ARRAY['evolve'::text, 'quarantine'::text, 'freeze'::text]));

create table envdata.export_mark (
  dataset text not null,
  year smallint not null,
  month smallint not null,
  xid xid8 not null default pg_current_xact_id(),
  marked_at timestamp with time zone not null default now()
);
alter table envdata.export_mark add constraint export_mark_pkey PRIMARY KEY (dataset, year, month, xid);
comment on table envdata.export_mark is 'Partitions (dataset, UTC year, month) a transaction changed, for the incremental Parquet export; deleted by the export whose snapshot saw them.';

create table envdata.export_run (
  export_id bigint not null generated always as identity,
  target text not null,
  started_at timestamp with time zone not null,
  finished_at timestamp with time zone not null,
  snapshot text not null,
  partitions_written integer not null,
  rows_written bigint not null,
  bytes_written bigint not null
);
alter table envdata.export_run add constraint export_run_pkey PRIMARY KEY (export_id);
comment on table envdata.export_run is 'The Parquet exports that finished (envdata export parquet): their directory, ledger position (snapshot) and what they wrote.';

create table envdata.forecast_accuracy_rollup (
  location_id integer not null,
  local_date date not null,
  dataset envdata.dataset not null,
  product envdata.snapshot_product not null,
  measure text not null,
  lead_day integer not null,
  pairs integer not null,
  compared integer not null,
  error_sum double precision,
  abs_error_sum double precision,
  squared_error_sum double precision,
  risk_compared integer not null,
  risk_hits integer not null
);
alter table envdata.forecast_accuracy_rollup add constraint forecast_accuracy_rollup_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.forecast_accuracy_rollup add constraint forecast_accuracy_rollup_pkey PRIMARY KEY (location_id, local_date, product, measure, lead_day);
CREATE INDEX forecast_accuracy_rollup_date ON envdata.forecast_accuracy_rollup USING btree (local_date);
CREATE INDEX forecast_accuracy_rollup_measure ON envdata.forecast_accuracy_rollup USING btree (measure, local_date) INCLUDE (location_id, dataset, product, lead_day, pairs, compared, error_sum, abs_error_sum, squared_error_sum, risk_compared, risk_hits);

create table envdata.geocode_answer (
  place_key text not null,
  matches jsonb not null,
  answered_at timestamp with time zone not null default now()
);
alter table envdata.geocode_answer add constraint geocode_answer_matches_check CHECK (jsonb_typeof(matches) = 'array'::text);
alter table envdata.geocode_answer add constraint geocode_answer_pkey PRIMARY KEY (place_key);

create table envdata.history_window (
  dataset envdata.dataset not null,
  key_fingerprint text not null,
  base_url text not null,
  accepted_hours integer,
  refused_hours integer,
  probe_chunk_id bigint,
  updated_at timestamp with time zone not null default now()
);
alter table envdata.history_window add constraint history_window_accepted_hours_check CHECK (accepted_hours >= 1);
alter table envdata.history_window add constraint history_window_check CHECK (accepted_hours < refused_hours);
alter table envdata.history_window add constraint history_window_key_fingerprint_check CHECK (key_fingerprint ~ '^[0-9a-f]{16}$'::text);
alter table envdata.history_window add constraint history_window_pkey PRIMARY KEY (dataset, key_fingerprint, base_url);
alter table envdata.history_window add constraint history_window_refused_hours_check CHECK (refused_hours >= 1);

create table envdata.lineage_receiver (
  receiver text not null,
  seen_at timestamp with time zone not null default now()
);
alter table envdata.lineage_receiver add constraint lineage_receiver_pkey PRIMARY KEY (receiver);
comment on table envdata.lineage_receiver is 'Processes with ENVDATA_OPENLINEAGE_URL set say so here: while one was seen in the last 7 days, runs record OpenLineage events in the outbox.';

create table envdata.location (
  location_id integer not null generated always as identity,
  name text not null,
  lat double precision not null,
  lng double precision not null,
  country_code character(2),
  timezone text not null,
  pollen_region envdata.pollen_region not null,
  place text,
  registered_by text not null,
  created_at timestamp with time zone not null default now(),
  retired_at timestamp with time zone,
  ingest_by_place boolean not null default false,
  name_key text not null,
  declared_group text
);
alter table envdata.location add constraint location_ingest_by_place_needs_place CHECK (NOT ingest_by_place OR place IS NOT NULL);
alter table envdata.location add constraint location_lat_check CHECK (lat >= '-90'::integer::double precision AND lat <= 90::double precision);
alter table envdata.location add constraint location_lng_check CHECK (lng >= '-180'::integer::double precision AND lng <= 180::double precision);
alter table envdata.location add constraint location_name_check CHECK (length(TRIM(BOTH FROM name)) > 0);
alter table envdata.location add constraint location_pkey PRIMARY KEY (location_id);
alter table envdata.location add constraint location_registered_by_check CHECK (registered_by = ANY (ARRAY['coordinates'::text, 'place'::text, 'import'::text]));
CREATE INDEX location_active ON envdata.location USING btree (location_id) WHERE (retired_at IS NULL);
CREATE UNIQUE INDEX location_name_key ON envdata.location USING btree (name_key);
CREATE UNIQUE INDEX location_point_key ON envdata.location USING btree (round((lat)::numeric, 4), round((lng)::numeric, 4));
CREATE TRIGGER export_mark AFTER INSERT OR DELETE OR UPDATE ON envdata.location FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_locations();
CREATE TRIGGER location_name_key_is_free BEFORE INSERT OR UPDATE OF name_key ON envdata.location FOR EACH ROW EXECUTE FUNCTION envdata.location_key_is_free();
CREATE TRIGGER location_timezone_changed AFTER UPDATE OF timezone ON envdata.location FOR EACH ROW WHEN (old.timezone IS DISTINCT FROM new.timezone) EXECUTE FUNCTION envdata.current_local_times();
comment on column envdata.location.declared_group is 'The group envdata.yaml last applied gives the location (its datasets may give the group a since of its own); null for none.';

create table envdata.location_alias (
  alias_key text not null,
  location_id integer not null,
  alias text not null
);
alter table envdata.location_alias add constraint location_alias_alias_check CHECK (length(TRIM(BOTH FROM alias)) > 0);
alter table envdata.location_alias add constraint location_alias_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.location_alias add constraint location_alias_pkey PRIMARY KEY (alias_key);
CREATE INDEX location_alias_location ON envdata.location_alias USING btree (location_id);
CREATE TRIGGER location_alias_key_is_free BEFORE INSERT OR UPDATE OF alias_key ON envdata.location_alias FOR EACH ROW EXECUTE FUNCTION envdata.location_key_is_free();

create table envdata.notification (
  notification_id bigint not null generated always as identity,
  dedupe_key text not null,
  event text not null,
  details jsonb not null default '{}'::jsonb,
  created_at timestamp with time zone not null default now()
);
alter table envdata.notification add constraint notification_dedupe_key_key UNIQUE (dedupe_key);
alter table envdata.notification add constraint notification_pkey PRIMARY KEY (notification_id);
CREATE INDEX notification_created_at ON envdata.notification USING btree (created_at);
CREATE INDEX notification_lineage_run ON envdata.notification USING btree ((((details ->> 'runId'::text))::integer)) WHERE (event = 'lineage'::text);

create table envdata.notification_delivery (
  notification_id bigint not null,
  target text not null,
  status text not null default 'pending'::text,
  attempts integer not null default 0,
  next_attempt_at timestamp with time zone not null default now(),
  last_error text,
  delivered_at timestamp with time zone
);
alter table envdata.notification_delivery add constraint notification_delivery_notification_id_fkey FOREIGN KEY (notification_id) REFERENCES envdata.notification(notification_id) ON DELETE CASCADE;
alter table envdata.notification_delivery add constraint notification_delivery_pkey PRIMARY KEY (notification_id, target);
alter table envdata.notification_delivery add constraint notification_delivery_status_check CHECK (status = ANY (ARRAY['pending'::text, 'delivered'::text, 'dropped'::text]));
CREATE INDEX notification_delivery_due ON envdata.notification_delivery USING btree (next_attempt_at) WHERE (status = 'pending'::text);

create table envdata.pending_repair (
  repair text not null,
  reason text not null,
  created_at timestamp with time zone not null default now()
);
alter table envdata.pending_repair add constraint pending_repair_pkey PRIMARY KEY (repair);

create table envdata.pollen_daily_rollup (
  location_id integer not null,
  local_date date not null,
  pollen_type envdata.pollen_type not null,
  hours integer not null,
  count_min integer,
  count_max integer,
  count_mean real,
  max_risk_level envdata.risk_level
);
alter table envdata.pollen_daily_rollup add constraint pollen_daily_rollup_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_daily_rollup add constraint pollen_daily_rollup_pkey PRIMARY KEY (location_id, local_date, pollen_type);
CREATE INDEX pollen_daily_rollup_date ON envdata.pollen_daily_rollup USING btree (local_date, pollen_type);
CREATE TRIGGER export_mark_delete AFTER DELETE ON envdata.pollen_daily_rollup REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_days('pollen_daily');
CREATE TRIGGER export_mark_insert AFTER INSERT ON envdata.pollen_daily_rollup REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_days('pollen_daily');
CREATE TRIGGER export_mark_update AFTER UPDATE ON envdata.pollen_daily_rollup REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_days('pollen_daily');

create table envdata.pollen_hourly (
  location_id integer not null,
  observed_at timestamp with time zone not null,
  pollen_type envdata.pollen_type not null,
  count integer,
  risk_level envdata.risk_level,
  answer_id bigint
) partition by RANGE (observed_at);
alter table envdata.pollen_hourly add constraint pollen_hourly_count_check CHECK (count >= 0);
alter table envdata.pollen_hourly add constraint pollen_hourly_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_hourly add constraint pollen_hourly_pkey PRIMARY KEY (location_id, observed_at, pollen_type);
CREATE TRIGGER export_mark_delete AFTER DELETE ON envdata.pollen_hourly REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_hours('pollen_hourly');
CREATE TRIGGER export_mark_update AFTER UPDATE ON envdata.pollen_hourly REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_hours('pollen_hourly');
CREATE TRIGGER keep_revision AFTER UPDATE ON envdata.pollen_hourly FOR EACH ROW WHEN (new.answer_id IS DISTINCT FROM old.answer_id) EXECUTE FUNCTION envdata.pollen_hourly_keep_revision();
-- 15 partition(s) of envdata.pollen_hourly:
--   envdata.pollen_hourly_y{2016..2030} FOR VALUES FROM ('{year}-01-01 00:00:00+00') TO ('{year + 1}-01-01 00:00:00+00')
--   each: CREATE INDEX {partition}_observed_at_idx ON envdata.{partition} USING brin (observed_at);
comment on column envdata.pollen_hourly.answer_id is 'The answer (envdata.answer) that last set this row''s values; null when landed before provenance was kept (migration 0051).';

create table envdata.pollen_hourly_revision (
  location_id integer not null,
  observed_at timestamp with time zone not null,
  pollen_type envdata.pollen_type,
  count integer,
  risk_level envdata.risk_level,
  answer_id bigint,
  valid_from timestamp with time zone,
  valid_to timestamp with time zone not null,
  replaced_by_answer bigint
);
alter table envdata.pollen_hourly_revision add constraint pollen_hourly_revision_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
CREATE INDEX pollen_hourly_revision_key ON envdata.pollen_hourly_revision USING btree (location_id, observed_at, valid_to);
CREATE INDEX pollen_hourly_revision_replaced_by ON envdata.pollen_hourly_revision USING btree (replaced_by_answer);
comment on table envdata.pollen_hourly_revision is 'Values of envdata.pollen_hourly a landing replaced: valid from valid_from (null: landed before migration 0051) until valid_to, set by answer_id, replaced by replaced_by_answer (its run: envdata.answer.run_id).';

create table envdata.pollen_snapshot (
  location_id integer not null,
  product envdata.snapshot_product not null,
  fetched_at timestamp with time zone not null,
  valid_at timestamp with time zone not null,
  pollen_type envdata.pollen_type not null,
  count integer,
  risk_level envdata.risk_level,
  stamped_at_fetch boolean not null default false
) partition by RANGE (fetched_at);
alter table envdata.pollen_snapshot add constraint pollen_snapshot_count_check CHECK (count >= 0);
alter table envdata.pollen_snapshot add constraint pollen_snapshot_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_snapshot add constraint pollen_snapshot_pkey PRIMARY KEY (location_id, product, fetched_at, valid_at, pollen_type);
CREATE INDEX pollen_snapshot_valid ON ONLY envdata.pollen_snapshot USING btree (location_id, valid_at);

create table envdata.pollen_snapshot_current (
  location_id integer not null,
  product text not null,
  fetched_at timestamp with time zone not null,
  valid_at timestamp with time zone not null,
  pollen_type text not null,
  count integer,
  risk_level text,
  stamped_at_fetch boolean not null default false,
  valid_at_local timestamp without time zone not null,
  lead_hours integer not null
);
alter table envdata.pollen_snapshot_current add constraint pollen_snapshot_count_check CHECK (count >= 0);
alter table envdata.pollen_snapshot_current add constraint pollen_snapshot_current_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_snapshot_current add constraint pollen_snapshot_current_pkey PRIMARY KEY (product, location_id, valid_at, pollen_type);
comment on table envdata.pollen_snapshot_current is 'The rows of envdata.pollen_snapshot of each location''s current snapshot of each product (envdata.current_fetch), with valid_at_local and lead_hours: kept by envdata.advance_current_snapshot().';

create table envdata.pollen_species (
  species_id smallint not null generated always as identity,
  category envdata.species_category not null,
  name text not null
);
alter table envdata.pollen_species add constraint pollen_species_category_name_key UNIQUE (category, name);
alter table envdata.pollen_species add constraint pollen_species_pkey PRIMARY KEY (species_id);

create table envdata.pollen_species_hourly (
  location_id integer not null,
  observed_at timestamp with time zone not null,
  species_id smallint not null,
  count integer not null,
  risk_level envdata.risk_level,
  answer_id bigint
) partition by RANGE (observed_at);
alter table envdata.pollen_species_hourly add constraint pollen_species_hourly_count_check CHECK (count >= 0);
alter table envdata.pollen_species_hourly add constraint pollen_species_hourly_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_species_hourly add constraint pollen_species_hourly_pkey PRIMARY KEY (location_id, observed_at, species_id);
alter table envdata.pollen_species_hourly add constraint pollen_species_hourly_species_id_fkey FOREIGN KEY (species_id) REFERENCES envdata.pollen_species(species_id);
CREATE TRIGGER export_mark_delete AFTER DELETE ON envdata.pollen_species_hourly REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_hours('pollen_species_hourly');
CREATE TRIGGER export_mark_update AFTER UPDATE ON envdata.pollen_species_hourly REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_hours('pollen_species_hourly');
CREATE TRIGGER keep_revision AFTER UPDATE ON envdata.pollen_species_hourly FOR EACH ROW WHEN (new.answer_id IS DISTINCT FROM old.answer_id) EXECUTE FUNCTION envdata.pollen_species_hourly_keep_revision();
-- 15 partition(s) of envdata.pollen_species_hourly:
--   envdata.pollen_species_hourly_y{2016..2030} FOR VALUES FROM ('{year}-01-01 00:00:00+00') TO ('{year + 1}-01-01 00:00:00+00')
--   each: CREATE INDEX {partition}_observed_at_idx ON envdata.{partition} USING brin (observed_at);
comment on column envdata.pollen_species_hourly.answer_id is 'The answer (envdata.answer) that last set this row''s values; null when landed before provenance was kept (migration 0051).';

create table envdata.pollen_species_hourly_revision (
  location_id integer not null,
  observed_at timestamp with time zone not null,
  species_id smallint,
  count integer,
  risk_level envdata.risk_level,
  answer_id bigint,
  valid_from timestamp with time zone,
  valid_to timestamp with time zone not null,
  replaced_by_answer bigint
);
alter table envdata.pollen_species_hourly_revision add constraint pollen_species_hourly_revision_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
CREATE INDEX pollen_species_hourly_revision_key ON envdata.pollen_species_hourly_revision USING btree (location_id, observed_at, valid_to);
CREATE INDEX pollen_species_hourly_revision_replaced_by ON envdata.pollen_species_hourly_revision USING btree (replaced_by_answer);
comment on table envdata.pollen_species_hourly_revision is 'Values of envdata.pollen_species_hourly a landing replaced: valid from valid_from (null: landed before migration 0051) until valid_to, set by answer_id, replaced by replaced_by_answer (its run: envdata.answer.run_id).';

create table envdata.pollen_species_snapshot (
  location_id integer not null,
  product envdata.snapshot_product not null,
  fetched_at timestamp with time zone not null,
  valid_at timestamp with time zone not null,
  species_id smallint not null,
  count integer not null,
  risk_level envdata.risk_level,
  stamped_at_fetch boolean not null default false
) partition by RANGE (fetched_at);
alter table envdata.pollen_species_snapshot add constraint pollen_species_snapshot_count_check CHECK (count >= 0);
alter table envdata.pollen_species_snapshot add constraint pollen_species_snapshot_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_species_snapshot add constraint pollen_species_snapshot_pkey PRIMARY KEY (location_id, product, fetched_at, valid_at, species_id);
alter table envdata.pollen_species_snapshot add constraint pollen_species_snapshot_species_id_fkey FOREIGN KEY (species_id) REFERENCES envdata.pollen_species(species_id);

create table envdata.pollen_species_snapshot_current (
  location_id integer not null,
  product text not null,
  fetched_at timestamp with time zone not null,
  valid_at timestamp with time zone not null,
  species_id smallint not null,
  count integer not null,
  risk_level text,
  stamped_at_fetch boolean not null default false,
  valid_at_local timestamp without time zone not null,
  lead_hours integer not null
);
alter table envdata.pollen_species_snapshot_current add constraint pollen_species_snapshot_count_check CHECK (count >= 0);
alter table envdata.pollen_species_snapshot_current add constraint pollen_species_snapshot_current_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.pollen_species_snapshot_current add constraint pollen_species_snapshot_current_pkey PRIMARY KEY (product, location_id, valid_at, species_id);
comment on table envdata.pollen_species_snapshot_current is 'The rows of envdata.pollen_species_snapshot of each location''s current snapshot of each product (envdata.current_fetch), with valid_at_local and lead_hours: kept by envdata.advance_current_snapshot().';

create table envdata.quarantine (
  quarantine_id bigint not null generated always as identity,
  chunk_id bigint,
  source text not null,
  location_id integer,
  record_index integer not null,
  raw jsonb,
  reason text not null,
  created_at timestamp with time zone not null default now(),
  run_id integer,
  observed_at timestamp with time zone
);
alter table envdata.quarantine add constraint quarantine_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.quarantine add constraint quarantine_pkey PRIMARY KEY (quarantine_id);
alter table envdata.quarantine add constraint quarantine_run_id_fkey FOREIGN KEY (run_id) REFERENCES envdata.run(run_id) ON DELETE SET NULL;
CREATE INDEX quarantine_chunk ON envdata.quarantine USING btree (chunk_id);
CREATE INDEX quarantine_unplaceable ON envdata.quarantine USING btree (run_id) WHERE (observed_at IS NULL);

create table envdata.quota_usage (
  quota_window text not null,
  period text not null,
  used integer not null,
  expires_at timestamp with time zone not null
);
alter table envdata.quota_usage add constraint quota_usage_pkey PRIMARY KEY (quota_window, period);
alter table envdata.quota_usage add constraint quota_usage_quota_window_check CHECK (quota_window = ANY (ARRAY['day'::text, 'month'::text]));
alter table envdata.quota_usage add constraint quota_usage_used_check CHECK (used >= 0);

create table envdata.rollup_dirty (
  location_id integer not null,
  dataset envdata.dataset not null,
  from_at timestamp with time zone not null,
  to_at timestamp with time zone not null
);
alter table envdata.rollup_dirty add constraint rollup_dirty_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;

create table envdata.run (
  run_id integer not null generated always as identity,
  kind text not null,
  status text not null default 'running'::text,
  request jsonb not null default '{}'::jsonb,
  created_at timestamp with time zone not null default now(),
  finished_at timestamp with time zone,
  error_code text,
  error_message text,
  blocked_datasets text[] not null default '{}'::text[],
  priority integer not null default 0,
  folded_chunks integer not null default 0,
  folded_rows bigint not null default 0,
  folded_calls bigint not null default 0,
  folded_records_quarantined bigint not null default 0,
  folded_missing_hours bigint not null default 0,
  folded_quarantined_hours bigint not null default 0,
  folded_not_covered_hours bigint not null default 0,
  folded_no_data_hours bigint not null default 0,
  window_auto boolean not null default false,
  waiting_reason text,
  waiting_until timestamp with time zone,
  folded_missing_chunks integer not null default 0,
  folded_reread_hours jsonb not null default '{}'::jsonb,
  traceparent text
);
alter table envdata.run add constraint run_kind_check CHECK (kind = ANY (ARRAY['backfill'::text, 'sync'::text, 'rebuild'::text]));
alter table envdata.run add constraint run_pkey PRIMARY KEY (run_id);
alter table envdata.run add constraint run_status_check CHECK (status = ANY (ARRAY['planning'::text, 'running'::text, 'paused'::text, 'done'::text, 'failed'::text, 'stopped'::text, 'cancelled'::text]));
CREATE INDEX run_running ON envdata.run USING btree (status) WHERE (status = 'running'::text);
comment on column envdata.run.folded_missing_chunks is 'Of folded_chunks, those that landed with hours missing upstream (missing_hours > 0).';
comment on column envdata.run.folded_reread_hours is 'Re-read hours (chunk.reread_hours) of its folded chunks, by dataset: {"weather": 48, "pollen": 48}.';
comment on column envdata.run.traceparent is 'W3C traceparent of the span that planned the run (OpenTelemetry); null when tracing was off.';

create table envdata.run_gap (
  run_gap_id bigint not null generated always as identity,
  run_id integer not null,
  dataset envdata.dataset not null,
  location_id integer not null,
  gap_from timestamp with time zone not null,
  gap_to timestamp with time zone not null,
  next_from timestamp with time zone not null,
  window_hours integer not null,
  refetch boolean not null default false,
  window_probes integer not null default 0
);
alter table envdata.run_gap add constraint run_gap_check CHECK (gap_from < gap_to AND next_from >= gap_from AND next_from <= gap_to);
alter table envdata.run_gap add constraint run_gap_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.run_gap add constraint run_gap_pkey PRIMARY KEY (run_gap_id);
alter table envdata.run_gap add constraint run_gap_run_id_fkey FOREIGN KEY (run_id) REFERENCES envdata.run(run_id) ON DELETE CASCADE;
alter table envdata.run_gap add constraint run_gap_window_hours_check CHECK (window_hours >= 1);
alter table envdata.run_gap add constraint run_gap_window_probes_check CHECK (window_probes >= 0);
CREATE INDEX run_gap_open ON envdata.run_gap USING btree (run_id, run_gap_id) WHERE (next_from < gap_to);
CREATE INDEX run_gap_refetch ON envdata.run_gap USING btree (run_id) WHERE refetch;

create table envdata.share_unit (
  dataset envdata.dataset not null,
  source text not null,
  unit text not null,
  updated_at timestamp with time zone not null default now(),
  field text not null
);
alter table envdata.share_unit add constraint share_unit_field_check CHECK (field = ANY (ARRAY['humidity'::text, 'cloudCover'::text, 'precipProbability'::text]));
alter table envdata.share_unit add constraint share_unit_pkey PRIMARY KEY (dataset, source, field);
alter table envdata.share_unit add constraint share_unit_source_check CHECK (source = ANY (ARRAY['history'::text, 'latest'::text, 'forecast_48h'::text, 'forecast_72h'::text, 'forecast_120h'::text]));
alter table envdata.share_unit add constraint share_unit_unit_check CHECK (unit = ANY (ARRAY['fraction'::text, 'percent'::text]));

create table envdata.snapshot_retention (
  singleton boolean not null default true,
  settled_before timestamp with time zone not null
);
alter table envdata.snapshot_retention add constraint snapshot_retention_pkey PRIMARY KEY (singleton);
alter table envdata.snapshot_retention add constraint snapshot_retention_singleton_check CHECK (singleton);
comment on table envdata.snapshot_retention is 'Forecast-accuracy rollup days starting before settled_before were summed from snapshots since dropped (ENVDATA_SNAPSHOT_RETENTION): refresh_daily_rollups() no longer recomputes them.';

create table envdata.upstream_shape (
  digest text not null,
  dataset envdata.dataset not null,
  source text not null,
  shape jsonb not null,
  first_seen_at timestamp with time zone not null default now(),
  last_seen_at timestamp with time zone not null default now(),
  answers bigint not null default 1,
  sample_chunk_id bigint,
  sample_body text,
  baseline boolean not null default false,
  accepted_at timestamp with time zone,
  froze boolean not null default false
);
alter table envdata.upstream_shape add constraint upstream_shape_answers_check CHECK (answers >= 0);
alter table envdata.upstream_shape add constraint upstream_shape_digest_check CHECK (digest ~ '^[0-9a-f]{12}$'::text);
alter table envdata.upstream_shape add constraint upstream_shape_pkey PRIMARY KEY (digest);
alter table envdata.upstream_shape add constraint upstream_shape_sample_body_check CHECK (length(sample_body) <= 65536);
alter table envdata.upstream_shape add constraint upstream_shape_source_check CHECK (source = ANY (ARRAY['history'::text, 'latest'::text, 'forecast_48h'::text, 'forecast_72h'::text, 'forecast_120h'::text]));
CREATE INDEX upstream_shape_endpoint ON envdata.upstream_shape USING btree (dataset, source, first_seen_at);

create table envdata.weather_daily_rollup (
  location_id integer not null,
  local_date date not null,
  hours integer not null,
  temperature_c_min real,
  temperature_c_max real,
  temperature_c_mean real,
  apparent_temperature_c_min real,
  apparent_temperature_c_max real,
  apparent_temperature_c_mean real,
  dew_point_c_min real,
  dew_point_c_max real,
  dew_point_c_mean real,
  humidity_pct_min real,
  humidity_pct_max real,
  humidity_pct_mean real,
  pressure_hpa_min real,
  pressure_hpa_max real,
  pressure_hpa_mean real,
  wind_speed_ms_min real,
  wind_speed_ms_max real,
  wind_speed_ms_mean real,
  wind_gust_ms_min real,
  wind_gust_ms_max real,
  wind_gust_ms_mean real,
  cloud_cover_pct_min real,
  cloud_cover_pct_max real,
  cloud_cover_pct_mean real,
  visibility_km_min real,
  visibility_km_max real,
  visibility_km_mean real,
  uv_index_min real,
  uv_index_max real,
  uv_index_mean real,
  ozone_du_min real,
  ozone_du_max real,
  ozone_du_mean real,
  precip_intensity_mm_h_min real,
  precip_intensity_mm_h_max real,
  precip_intensity_mm_h_mean real,
  precip_probability_pct_min real,
  precip_probability_pct_max real,
  precip_probability_pct_mean real,
  precip_total_mm real
);
alter table envdata.weather_daily_rollup add constraint weather_daily_rollup_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.weather_daily_rollup add constraint weather_daily_rollup_pkey PRIMARY KEY (location_id, local_date);
CREATE INDEX weather_daily_rollup_date ON envdata.weather_daily_rollup USING btree (local_date);
CREATE TRIGGER export_mark_delete AFTER DELETE ON envdata.weather_daily_rollup REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_days('weather_daily');
CREATE TRIGGER export_mark_insert AFTER INSERT ON envdata.weather_daily_rollup REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_days('weather_daily');
CREATE TRIGGER export_mark_update AFTER UPDATE ON envdata.weather_daily_rollup REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_days('weather_daily');

create table envdata.weather_hourly (
  location_id integer not null,
  observed_at timestamp with time zone not null,
  temperature_c real,
  apparent_temperature_c real,
  dew_point_c real,
  humidity_fraction real,
  pressure_hpa real,
  wind_speed_ms real,
  wind_gust_ms real,
  wind_bearing_deg real,
  cloud_cover_fraction real,
  visibility_km real,
  uv_index real,
  ozone_du real,
  precip_intensity_mm_h real,
  precip_probability_fraction real,
  precip_type text,
  summary text,
  icon envdata.weather_icon,
  icon_raw text,
  answer_id bigint
) partition by RANGE (observed_at);
alter table envdata.weather_hourly add constraint weather_hourly_cloud_cover_fraction_check CHECK (cloud_cover_fraction >= 0::double precision AND cloud_cover_fraction <= 1::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_humidity_fraction_check CHECK (humidity_fraction >= 0::double precision AND humidity_fraction <= 1::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.weather_hourly add constraint weather_hourly_pkey PRIMARY KEY (location_id, observed_at);
alter table envdata.weather_hourly add constraint weather_hourly_precip_intensity_mm_h_check CHECK (precip_intensity_mm_h >= 0::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_precip_probability_fraction_check CHECK (precip_probability_fraction >= 0::double precision AND precip_probability_fraction <= 1::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_uv_index_check CHECK (uv_index >= 0::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_visibility_km_check CHECK (visibility_km >= 0::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_wind_bearing_deg_check CHECK (wind_bearing_deg >= 0::double precision AND wind_bearing_deg <= 360::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_wind_gust_ms_check CHECK (wind_gust_ms >= 0::double precision);
alter table envdata.weather_hourly add constraint weather_hourly_wind_speed_ms_check CHECK (wind_speed_ms >= 0::double precision);
CREATE TRIGGER export_mark_delete AFTER DELETE ON envdata.weather_hourly REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_hours('weather_hourly');
CREATE TRIGGER export_mark_update AFTER UPDATE ON envdata.weather_hourly REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION envdata.export_mark_hours('weather_hourly');
CREATE TRIGGER keep_revision AFTER UPDATE ON envdata.weather_hourly FOR EACH ROW WHEN (new.answer_id IS DISTINCT FROM old.answer_id) EXECUTE FUNCTION envdata.weather_hourly_keep_revision();
-- 41 partition(s) of envdata.weather_hourly:
--   envdata.weather_hourly_y{1990..2030} FOR VALUES FROM ('{year}-01-01 00:00:00+00') TO ('{year + 1}-01-01 00:00:00+00')
--   each: CREATE INDEX {partition}_observed_at_idx ON envdata.{partition} USING brin (observed_at);
comment on column envdata.weather_hourly.answer_id is 'The answer (envdata.answer) that last set this row''s values; null when landed before provenance was kept (migration 0051).';

create table envdata.weather_hourly_revision (
  location_id integer not null,
  observed_at timestamp with time zone not null,
  temperature_c real,
  apparent_temperature_c real,
  dew_point_c real,
  humidity_fraction real,
  pressure_hpa real,
  wind_speed_ms real,
  wind_gust_ms real,
  wind_bearing_deg real,
  cloud_cover_fraction real,
  visibility_km real,
  uv_index real,
  ozone_du real,
  precip_intensity_mm_h real,
  precip_probability_fraction real,
  precip_type text,
  summary text,
  icon envdata.weather_icon,
  icon_raw text,
  answer_id bigint,
  valid_from timestamp with time zone,
  valid_to timestamp with time zone not null,
  replaced_by_answer bigint
);
alter table envdata.weather_hourly_revision add constraint weather_hourly_revision_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
CREATE INDEX weather_hourly_revision_key ON envdata.weather_hourly_revision USING btree (location_id, observed_at, valid_to);
CREATE INDEX weather_hourly_revision_replaced_by ON envdata.weather_hourly_revision USING btree (replaced_by_answer);
comment on table envdata.weather_hourly_revision is 'Values of envdata.weather_hourly a landing replaced: valid from valid_from (null: landed before migration 0051) until valid_to, set by answer_id, replaced by replaced_by_answer (its run: envdata.answer.run_id).';

create table envdata.weather_snapshot (
  location_id integer not null,
  product envdata.snapshot_product not null,
  fetched_at timestamp with time zone not null,
  valid_at timestamp with time zone not null,
  temperature_c real,
  apparent_temperature_c real,
  dew_point_c real,
  humidity_fraction real,
  pressure_hpa real,
  wind_speed_ms real,
  wind_gust_ms real,
  wind_bearing_deg real,
  cloud_cover_fraction real,
  visibility_km real,
  uv_index real,
  ozone_du real,
  precip_intensity_mm_h real,
  precip_probability_fraction real,
  precip_type text,
  summary text,
  icon envdata.weather_icon,
  icon_raw text,
  stamped_at_fetch boolean not null default false
) partition by RANGE (fetched_at);
alter table envdata.weather_snapshot add constraint weather_snapshot_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.weather_snapshot add constraint weather_snapshot_pkey PRIMARY KEY (location_id, product, fetched_at, valid_at);
CREATE INDEX weather_snapshot_valid ON ONLY envdata.weather_snapshot USING btree (location_id, valid_at);

create table envdata.weather_snapshot_current (
  location_id integer not null,
  product text not null,
  fetched_at timestamp with time zone not null,
  valid_at timestamp with time zone not null,
  temperature_c real,
  apparent_temperature_c real,
  dew_point_c real,
  humidity_fraction real,
  pressure_hpa real,
  wind_speed_ms real,
  wind_gust_ms real,
  wind_bearing_deg real,
  cloud_cover_fraction real,
  visibility_km real,
  uv_index real,
  ozone_du real,
  precip_intensity_mm_h real,
  precip_probability_fraction real,
  precip_type text,
  summary text,
  icon text,
  icon_raw text,
  stamped_at_fetch boolean not null default false,
  valid_at_local timestamp without time zone not null,
  lead_hours integer not null
);
alter table envdata.weather_snapshot_current add constraint weather_snapshot_current_location_id_fkey FOREIGN KEY (location_id) REFERENCES envdata.location(location_id) ON DELETE CASCADE;
alter table envdata.weather_snapshot_current add constraint weather_snapshot_current_pkey PRIMARY KEY (product, location_id, valid_at);
comment on table envdata.weather_snapshot_current is 'The rows of envdata.weather_snapshot of each location''s current snapshot of each product (envdata.current_fetch), with valid_at_local and lead_hours: kept by envdata.advance_current_snapshot().';

create table envdata.worker_heartbeat (
  queue text not null,
  worker_id text not null,
  host text not null,
  pid integer not null,
  concurrency integer not null,
  busy integer not null,
  started_at timestamp with time zone not null,
  beat_at timestamp with time zone not null,
  expires_at timestamp with time zone not null
);
alter table envdata.worker_heartbeat add constraint worker_heartbeat_busy_check CHECK (busy >= 0);
alter table envdata.worker_heartbeat add constraint worker_heartbeat_concurrency_check CHECK (concurrency > 0);
alter table envdata.worker_heartbeat add constraint worker_heartbeat_pid_check CHECK (pid > 0);
alter table envdata.worker_heartbeat add constraint worker_heartbeat_pkey PRIMARY KEY (queue, worker_id);

create view analytics.answers as
 SELECT a.answer_id,
    a.location_id,
    a.dataset::text AS dataset,
    a.window_from,
    a.window_to,
    a.endpoint,
    a.http_status,
    a.fetched_at,
    a.landed_at,
    a.run_id,
    encode(a.body_sha256, 'hex'::text) AS answer_sha256,
    b.body_bytes,
    b.body_sha256 IS NOT NULL AS body_archived
   FROM envdata.answer a
     LEFT JOIN envdata.answer_body b USING (body_sha256);
grant SELECT on table analytics.answers to envdata_bi;
comment on view analytics.answers is 'Each answer of the service that landed anything: what was asked (location, dataset, window, endpoint), when it was fetched and landed, by which run, and the SHA-256 of its body (hex) as received. body_archived: the archive still keeps the body (ENVDATA_ARCHIVE_RAW, ENVDATA_ARCHIVE_RETENTION_DAYS).';
comment on column analytics.answers.answer_id is 'key of the answer (the source columns of the facts name it)';
comment on column analytics.answers.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.answers.dataset is 'weather or pollen';
comment on column analytics.answers.window_from is 'first hour asked for, UTC';
comment on column analytics.answers.window_to is 'end of the hours asked for (exclusive), UTC';
comment on column analytics.answers.endpoint is 'the service endpoint path that answered (no query); null for answers archived before migration 0051';
comment on column analytics.answers.http_status is 'HTTP status of the answer: 200, or 206 for an answer trimmed by the quota';
comment on column analytics.answers.fetched_at is 'when envdata received the answer, UTC';
comment on column analytics.answers.landed_at is 'when its landing transaction began, UTC: the instant analytics.*_as_of counts it from';
comment on column analytics.answers.run_id is 'the run that fetched it (envdata status RUN); null for a rebuild from the archive';
comment on column analytics.answers.answer_sha256 is 'SHA-256 of the answer''s body exactly as received, hex: the same as sha256sum of the archived body, gunzipped';
comment on column analytics.answers.body_bytes is 'size of the body as received, bytes; null when the archive no longer keeps it';
comment on column analytics.answers.body_archived is 'whether the archive keeps the body (ENVDATA_ARCHIVE_RAW; ENVDATA_ARCHIVE_RETENTION_DAYS drops older ones)';

create view analytics.coverage as
 SELECT c.location_id,
    l.name AS location_name,
    c.dataset::text AS dataset,
    lower(c.landed) AS first_hour,
    upper(c.landed) - '01:00:00'::interval AS last_ingested_hour,
    c.landed AS covered_ranges,
        CASE
            WHEN isempty(c.landed) THEN '{}'::tstzmultirange
            ELSE tstzmultirange(tstzrange(lower(c.landed), upper(c.landed))) - c.landed
        END AS gaps,
    COALESCE(h.missing_upstream, '{}'::tstzmultirange) - c.landed AS missing_upstream_ranges,
    COALESCE(h.quarantined, '{}'::tstzmultirange) - c.landed AS quarantined_ranges,
    COALESCE(h.not_covered, '{}'::tstzmultirange) - c.landed AS not_covered_ranges,
    COALESCE(h.no_data, '{}'::tstzmultirange) - c.landed AS no_data_ranges,
    isempty(c.landed) AND NOT isempty(COALESCE(h.no_data, '{}'::tstzmultirange) + COALESCE(h.not_covered, '{}'::tstzmultirange)) AS known_empty
   FROM envdata.coverage c
     JOIN envdata.location l USING (location_id)
     LEFT JOIN LATERAL ( SELECT range_agg(x.hours) FILTER (WHERE x.cause = 'missing_upstream'::text) AS missing_upstream,
            range_agg(x.hours) FILTER (WHERE x.cause = 'quarantined'::text) AS quarantined,
            range_agg(x.hours) FILTER (WHERE x.cause = 'not_covered'::text) AS not_covered,
            range_agg(x.hours) FILTER (WHERE x.cause = 'no_data'::text) AS no_data
           FROM envdata.coverage_hole x
          WHERE x.location_id = c.location_id AND x.dataset = c.dataset) h ON true;
grant SELECT on table analytics.coverage to envdata_bi;
comment on view analytics.coverage is 'One row per location and dataset: the hour ranges that landed, the gaps between them and the holes the ledger recorded by cause (missing upstream, quarantined, not covered, no data). What a completeness check reads.';
comment on column analytics.coverage.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.coverage.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.coverage.dataset is 'pollen or weather';
comment on column analytics.coverage.first_hour is 'first hour with rows, UTC (null when no hour has landed)';
comment on column analytics.coverage.last_ingested_hour is 'last hour with rows (the start of that hour), UTC';
comment on column analytics.coverage.covered_ranges is 'every hour whose rows are in the facts, as half-open [from, to) ranges of hours, UTC';
comment on column analytics.coverage.gaps is 'hours between first_hour and the end of the last range without rows; {} when none, or nothing landed';
comment on column analytics.coverage.missing_upstream_ranges is 'hours the service never sent in a successful answer, even when asked again (ENVDATA_REFETCH_ATTEMPTS)';
comment on column analytics.coverage.quarantined_ranges is 'hours whose records were quarantined (invalid, or sent twice with different values); reasons in envdata.quarantine';
comment on column analytics.coverage.not_covered_ranges is 'hours the service answered 404 for (outside its coverage)';
comment on column analytics.coverage.no_data_ranges is 'hours whose latest answer was "Data not available!": a clean zero, asked again after ENVDATA_NO_DATA_RECHECK';
comment on column analytics.coverage.known_empty is 'nothing landed, and what was asked was answered "no data" or "not covered"';

create view analytics.dataset_freshness as
 WITH per_location AS (
         SELECT d_1.dataset,
            l.location_id,
            l.name,
                CASE
                    WHEN upper(c.landed) IS NULL AND h.answered_to IS NOT NULL AND NOT COALESCE(h.other_holes, false) THEN h.answered_to
                    ELSE upper(c.landed)
                END AS fresh_until,
            k.known_until,
            k.next_known
           FROM unnest(enum_range(NULL::envdata.dataset)) d_1(dataset)
             CROSS JOIN envdata.location l
             LEFT JOIN envdata.coverage c ON c.location_id = l.location_id AND c.dataset = d_1.dataset
             LEFT JOIN LATERAL ( SELECT max(upper(x.hours)) FILTER (WHERE x.cause = ANY (ARRAY['no_data'::text, 'not_covered'::text])) AS answered_to,
                    bool_or(x.cause <> ALL (ARRAY['no_data'::text, 'not_covered'::text])) AS other_holes,
                    range_agg(x.hours) AS holes
                   FROM envdata.coverage_hole x
                  WHERE x.location_id = l.location_id AND x.dataset = d_1.dataset) h ON true
             LEFT JOIN LATERAL ( SELECT max(upper(u.r)) FILTER (WHERE u.i = 1) AS known_until,
                    max(lower(u.r)) FILTER (WHERE u.i = 2) AS next_known
                   FROM unnest(COALESCE(c.landed, '{}'::tstzmultirange) + COALESCE(c.no_data, '{}'::tstzmultirange) + COALESCE(h.holes, '{}'::tstzmultirange)) WITH ORDINALITY u(r, i)
                  WHERE u.i <= 2) k ON true
          WHERE l.retired_at IS NULL
        )
 SELECT d.dataset::text AS dataset,
    f.complete_through,
    f.locations,
    f.lag_hours,
    w.name AS worst_location,
        CASE
            WHEN w.lacking THEN w.fresh_until
            ELSE NULL::timestamp with time zone
        END AS hole_from,
        CASE
            WHEN w.lacking THEN date_trunc('hour'::text, now())
            ELSE NULL::timestamp with time zone
        END AS hole_to,
        CASE
            WHEN w.lacking THEN COALESCE(( SELECT
                    CASE
                        WHEN ch.status = 'failed'::envdata.chunk_status THEN 'envdata retry '::text || ch.run_id
                        WHEN r.status = ANY (ARRAY['paused'::text, 'stopped'::text]) THEN 'envdata resume '::text || ch.run_id
                        ELSE ((('nothing to run: run '::text || ch.run_id) || ' is fetching these hours (envdata status '::text) || ch.run_id) || ')'::text
                    END AS "case"
               FROM envdata.chunk ch
                 JOIN envdata.run r ON r.run_id = ch.run_id
              WHERE ch.location_id = w.location_id AND ch.dataset = d.dataset AND (ch.status <> ALL (ARRAY['done'::envdata.chunk_status, 'split'::envdata.chunk_status])) AND ch.window_from < date_trunc('hour'::text, now()) AND ch.window_to > COALESCE(w.fresh_until, '-infinity'::timestamp with time zone) AND (ch.status = 'failed'::envdata.chunk_status OR (r.status = ANY (ARRAY['planning'::text, 'running'::text, 'paused'::text, 'stopped'::text])))
              ORDER BY ch.window_from, ch.chunk_id
             LIMIT 1), 'envdata sync --now --wait'::text)
            ELSE NULL::text
        END AS clear_with,
    f.history_complete_through,
    hh.name AS history_hole_location,
    hh.known_until AS history_hole_from,
    hh.next_known AS history_hole_to,
        CASE
            WHEN hh.location_id IS NOT NULL THEN COALESCE(( SELECT
                    CASE
                        WHEN ch.status = 'failed'::envdata.chunk_status THEN 'envdata retry '::text || ch.run_id
                        WHEN r.status = ANY (ARRAY['paused'::text, 'stopped'::text]) THEN 'envdata resume '::text || ch.run_id
                        ELSE ((('nothing to run: run '::text || ch.run_id) || ' is fetching these hours (envdata status '::text) || ch.run_id) || ')'::text
                    END AS "case"
               FROM envdata.chunk ch
                 JOIN envdata.run r ON r.run_id = ch.run_id
              WHERE ch.location_id = hh.location_id AND ch.dataset = d.dataset AND (ch.status <> ALL (ARRAY['done'::envdata.chunk_status, 'split'::envdata.chunk_status])) AND ch.window_from < hh.next_known AND ch.window_to > hh.known_until AND (ch.status = 'failed'::envdata.chunk_status OR (r.status = ANY (ARRAY['planning'::text, 'running'::text, 'paused'::text, 'stopped'::text])))
              ORDER BY ch.window_from, ch.chunk_id
             LIMIT 1), (((((('envdata backfill --dataset '::text || d.dataset::text) || ' --location '::text) ||
            CASE
                WHEN hh.name ~ '^[A-Za-z0-9_.,:/@+-]+$'::text THEN hh.name
                ELSE ('"'::text || replace(replace(replace(hh.name, '\'::text, '\\'::text), '"'::text, '\"'::text), '$'::text, '\$'::text)) || '"'::text
            END) || ' --from '::text) ||
            CASE
                WHEN hh.known_until = date_trunc('day'::text, hh.known_until, 'UTC'::text) THEN to_char((hh.known_until AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD'::text)
                ELSE ('"'::text || to_char((hh.known_until AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD HH24:00:00'::text)) || '"'::text
            END) || ' --to '::text) ||
            CASE
                WHEN hh.next_known = date_trunc('day'::text, hh.next_known, 'UTC'::text) THEN to_char((hh.next_known AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD'::text)
                ELSE ('"'::text || to_char((hh.next_known AT TIME ZONE 'UTC'::text), 'YYYY-MM-DD HH24:00:00'::text)) || '"'::text
            END)
            ELSE NULL::text
        END AS history_clear_with
   FROM unnest(enum_range(NULL::envdata.dataset)) d(dataset)
     CROSS JOIN LATERAL ( SELECT
                CASE
                    WHEN bool_and(p.fresh_until IS NOT NULL) THEN LEAST(min(p.fresh_until), date_trunc('hour'::text, now())) - '01:00:00'::interval
                    ELSE NULL::timestamp with time zone
                END AS complete_through,
            count(*)::integer AS locations,
                CASE
                    WHEN bool_and(p.fresh_until IS NOT NULL) THEN GREATEST(0::numeric, EXTRACT(epoch FROM now() - min(p.fresh_until)) / 3600::numeric)::double precision
                    ELSE NULL::double precision
                END AS lag_hours,
                CASE
                    WHEN bool_and(p.known_until IS NOT NULL) THEN LEAST(min(p.known_until), date_trunc('hour'::text, now())) - '01:00:00'::interval
                    ELSE NULL::timestamp with time zone
                END AS history_complete_through
           FROM per_location p
          WHERE p.dataset = d.dataset) f
     LEFT JOIN LATERAL ( SELECT p.location_id,
            p.name,
            p.fresh_until,
            p.fresh_until IS NULL OR p.fresh_until < date_trunc('hour'::text, now()) AS lacking
           FROM per_location p
          WHERE p.dataset = d.dataset
          ORDER BY p.fresh_until NULLS FIRST, p.name, p.location_id
         LIMIT 1) w ON true
     LEFT JOIN LATERAL ( SELECT p.location_id,
            p.name,
            p.known_until,
            p.next_known
           FROM per_location p
          WHERE p.dataset = d.dataset AND p.next_known IS NOT NULL
          ORDER BY p.known_until, p.name, p.location_id
         LIMIT 1) hh ON true;
grant SELECT on table analytics.dataset_freshness to envdata_bi;
comment on view analytics.dataset_freshness is 'Per dataset, how fresh it is as envdata status counts it: the newest hour every active location has landed, the lag of the least fresh location, which location that is, the hours it lacks and what to run (what freshness checks read, e.g. dbt loaded_at_query). Apart, the history: the hour through which every location has an answer for every hour, and the oldest hole that holds it back, with what to run to fill it.';
comment on column analytics.dataset_freshness.dataset is 'pollen or weather: one row each';
comment on column analytics.dataset_freshness.complete_through is 'start of the newest hour that every active location has landed (a location the service has only "no data" answers for: its newest answer), no later than the last complete hour: the hour of the least fresh location, as envdata status and the console count it; an older hole in the history does not hold it back (see history_complete_through); null while some active location has nothing';
comment on column analytics.dataset_freshness.locations is 'how many active (not retired) locations were counted';
comment on column analytics.dataset_freshness.lag_hours is 'hours from the end of complete_through to now: the lag of the least fresh location, the same number envdata status shows and compares with ENVDATA_FRESHNESS_MAX_LAG (36 h by default, what dbt warns after); null while some active location has nothing';
comment on column analytics.dataset_freshness.worst_location is 'name of the least fresh active location (one that has nothing first, then the oldest newest hour; ties by name): the one that sets complete_through; null without locations';
comment on column analytics.dataset_freshness.hole_from is 'start of the first hour worst_location lacks up to now (the end of its newest hour); null when it has nothing at all or lacks no complete hour';
comment on column analytics.dataset_freshness.hole_to is 'end of the hours worst_location lacks: the end of the last complete hour; null when it lacks no complete hour';
comment on column analytics.dataset_freshness.clear_with is 'what to run to bring worst_location up to now, e.g. "envdata sync --now --wait"; "envdata resume N" or "envdata retry N" when run N holds those hours, or what to wait for; null when it lacks no complete hour';
comment on column analytics.dataset_freshness.history_complete_through is 'start of the last hour through which every active location has an answer for every hour (rows landed, "no data", or a recorded hole), counted from its own first known hour, no later than the last complete hour: a hole in the past (a cancelled backfill, a failed chunk) holds it back; null while some active location has no known hour';
comment on column analytics.dataset_freshness.history_hole_location is 'name of the active location whose first hole in the history is the oldest (ties by name); null when no location has a hole before its newest known hour';
comment on column analytics.dataset_freshness.history_hole_from is 'start of that hole: the first hour of history_hole_location with no answer after its first known hours';
comment on column analytics.dataset_freshness.history_hole_to is 'end of that hole: the start of the next hour with an answer';
comment on column analytics.dataset_freshness.history_clear_with is 'what to run to fill that hole, e.g. envdata backfill --dataset weather --location Berlin --from 2024-01-01 --to 2024-02-01; "envdata resume N" or "envdata retry N" when run N holds those hours, or what to wait for';

create view analytics.forecast_accuracy as
 SELECT f.location_id,
    l.name AS location_name,
    'pollen'::text AS dataset,
    f.product::text AS product,
    f.fetched_at,
    f.valid_at AS forecast_for,
    EXTRACT(epoch FROM f.valid_at - f.fetched_at) / 3600::numeric AS lead_hours,
    f.pollen_type::text AS measure,
    f.count::double precision AS forecast_value,
    o.count::double precision AS observed_value,
    f.risk_level::text AS forecast_risk_level,
    o.risk_level::text AS observed_risk_level
   FROM envdata.pollen_snapshot f
     JOIN envdata.location l USING (location_id)
     JOIN envdata.pollen_hourly o ON o.location_id = f.location_id AND o.observed_at = f.valid_at AND o.pollen_type = f.pollen_type
  WHERE f.product <> 'latest'::envdata.snapshot_product
UNION ALL
 SELECT f.location_id,
    l.name AS location_name,
    'weather'::text AS dataset,
    f.product::text AS product,
    f.fetched_at,
    f.valid_at AS forecast_for,
    EXTRACT(epoch FROM f.valid_at - f.fetched_at) / 3600::numeric AS lead_hours,
    m.measure,
    m.forecast_value,
    m.observed_value,
    NULL::text AS forecast_risk_level,
    NULL::text AS observed_risk_level
   FROM envdata.weather_snapshot f
     JOIN envdata.location l USING (location_id)
     JOIN envdata.weather_hourly o ON o.location_id = f.location_id AND o.observed_at = f.valid_at
     CROSS JOIN LATERAL ( VALUES ('temperature_c'::text,round(f.temperature_c::double precision * 100::double precision) / 100::double precision,round(o.temperature_c::double precision * 100::double precision) / 100::double precision), ('apparent_temperature_c'::text,round(f.apparent_temperature_c::double precision * 100::double precision) / 100::double precision,round(o.apparent_temperature_c::double precision * 100::double precision) / 100::double precision), ('humidity_pct'::text,round(f.humidity_fraction::double precision * 10000::double precision) / 100::double precision,round(o.humidity_fraction::double precision * 10000::double precision) / 100::double precision), ('pressure_hpa'::text,round(f.pressure_hpa::double precision * 100::double precision) / 100::double precision,round(o.pressure_hpa::double precision * 100::double precision) / 100::double precision), ('wind_speed_ms'::text,round(f.wind_speed_ms::double precision * 100::double precision) / 100::double precision,round(o.wind_speed_ms::double precision * 100::double precision) / 100::double precision), ('cloud_cover_pct'::text,round(f.cloud_cover_fraction::double precision * 10000::double precision) / 100::double precision,round(o.cloud_cover_fraction::double precision * 10000::double precision) / 100::double precision), ('precip_intensity_mm_h'::text,round(f.precip_intensity_mm_h::double precision * 100::double precision) / 100::double precision,round(o.precip_intensity_mm_h::double precision * 100::double precision) / 100::double precision), ('precip_probability_pct'::text,round(f.precip_probability_fraction::double precision * 10000::double precision) / 100::double precision,round(o.precip_probability_fraction::double precision * 10000::double precision) / 100::double precision)) m(measure, forecast_value, observed_value)
  WHERE f.product <> 'latest'::envdata.snapshot_product;
grant SELECT on table analytics.forecast_accuracy to envdata_bi;
comment on view analytics.forecast_accuracy is 'Each stored forecast hour beside what was observed for it: one row per location, forecast fetch, forecast hour and measure (pollen type or weather measure), with the lead time in hours. Only hours that were both forecast and observed.';
comment on column analytics.forecast_accuracy.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.forecast_accuracy.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.forecast_accuracy.dataset is 'pollen or weather';
comment on column analytics.forecast_accuracy.product is 'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
comment on column analytics.forecast_accuracy.fetched_at is 'when envdata fetched it (the instant of the sync), UTC: when the forecast was fetched';
comment on column analytics.forecast_accuracy.forecast_for is 'start of the hour forecast, UTC';
comment on column analytics.forecast_accuracy.lead_hours is 'forecast_for − fetched_at, in hours (fractional)';
comment on column analytics.forecast_accuracy.measure is 'pollen: tree, grass, weed; weather: temperature_c, apparent_temperature_c, humidity_pct, pressure_hpa, wind_speed_ms, cloud_cover_pct, precip_intensity_mm_h, precip_probability_pct';
comment on column analytics.forecast_accuracy.forecast_value is 'the forecast, in the measure''s unit (as in the hourly views: counts in grains per m³, percentages 0–100), to 2 decimals';
comment on column analytics.forecast_accuracy.observed_value is 'the observation of the same hour, same unit and precision';
comment on column analytics.forecast_accuracy.forecast_risk_level is 'pollen only: forecast risk, Low, Moderate, High, Very High (text: order by severity with array_position)';
comment on column analytics.forecast_accuracy.observed_risk_level is 'pollen only: observed risk, Low, Moderate, High, Very High (text: order by severity with array_position)';

create view analytics.forecast_accuracy_daily as
 SELECT r.location_id,
    l.name AS location_name,
    r.local_date,
    r.dataset::text AS dataset,
    r.product::text AS product,
    r.measure,
    r.lead_day,
    r.pairs,
    r.compared,
    r.error_sum,
    r.abs_error_sum,
    r.squared_error_sum,
    r.abs_error_sum / NULLIF(r.compared, 0)::double precision AS mae,
    sqrt(r.squared_error_sum / NULLIF(r.compared, 0)::double precision) AS rmse,
    r.error_sum / NULLIF(r.compared, 0)::double precision AS bias,
        CASE
            WHEN r.dataset = 'pollen'::envdata.dataset THEN r.risk_compared
            ELSE NULL::integer
        END AS risk_compared,
        CASE
            WHEN r.dataset = 'pollen'::envdata.dataset THEN r.risk_hits
            ELSE NULL::integer
        END AS risk_hits
   FROM envdata.forecast_accuracy_rollup r
     JOIN envdata.location l USING (location_id);
grant SELECT on table analytics.forecast_accuracy_daily to envdata_bi;
comment on view analytics.forecast_accuracy_daily is 'Forecast errors summed per location, local day, dataset, product, measure and lead day (mae, rmse, bias; for pollen, risk level hits): what a forecast accuracy dashboard reads.';
comment on column analytics.forecast_accuracy_daily.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.forecast_accuracy_daily.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.forecast_accuracy_daily.local_date is 'the local day of the forecast hour (forecast_for), in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.forecast_accuracy_daily.dataset is 'pollen or weather';
comment on column analytics.forecast_accuracy_daily.product is 'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
comment on column analytics.forecast_accuracy_daily.measure is 'pollen: tree, grass, weed; weather: temperature_c, apparent_temperature_c, humidity_pct, pressure_hpa, wind_speed_ms, cloud_cover_pct, precip_intensity_mm_h, precip_probability_pct';
comment on column analytics.forecast_accuracy_daily.lead_day is 'ceil(lead_hours / 24): 0 for the hour fetched, 1 for the next 24 hours, …';
comment on column analytics.forecast_accuracy_daily.pairs is 'forecast hours with an observation (rows of forecast_accuracy)';
comment on column analytics.forecast_accuracy_daily.compared is 'pairs where both values are present';
comment on column analytics.forecast_accuracy_daily.error_sum is 'sum of forecast_value − observed_value over the compared pairs, in the measure''s unit';
comment on column analytics.forecast_accuracy_daily.abs_error_sum is 'sum of absolute errors';
comment on column analytics.forecast_accuracy_daily.squared_error_sum is 'sum of squared errors';
comment on column analytics.forecast_accuracy_daily.mae is 'abs_error_sum / compared: mean absolute error of this row (add the sums over rows, then divide)';
comment on column analytics.forecast_accuracy_daily.rmse is 'root mean squared error of this row';
comment on column analytics.forecast_accuracy_daily.bias is 'error_sum / compared: positive when the forecast was too high';
comment on column analytics.forecast_accuracy_daily.risk_compared is 'pollen: pairs where both risk levels are present; null for weather';
comment on column analytics.forecast_accuracy_daily.risk_hits is 'pollen: pairs whose forecast risk level was the observed one; null for weather';

create view analytics.locations as
 SELECT location.location_id,
    location.name,
    location.lat,
    location.lng,
    location.country_code::text AS country_code,
    location.timezone,
    location.pollen_region::text AS pollen_region
   FROM envdata.location;
grant SELECT on table analytics.locations to envdata_bi;
comment on view analytics.locations is 'One row per registered location (active or retired): its name, coordinates, country, time zone and pollen region. Join the other views on location_id.';
comment on column analytics.locations.location_id is 'key of the location in every analytics view';
comment on column analytics.locations.name is 'unique name, as people read it (case, Unicode form and invisible characters aside); NFC';
comment on column analytics.locations.lat is 'latitude, WGS 84 degrees, to 4 decimals (about 11 m)';
comment on column analytics.locations.lng is 'longitude, WGS 84 degrees, to 4 decimals';
comment on column analytics.locations.country_code is 'ISO 3166-1 alpha-2 (DE); null when unknown';
comment on column analytics.locations.timezone is 'IANA time zone (Europe/Berlin): defines the location''s local days';
comment on column analytics.locations.pollen_region is 'europe, north_america, australia_qld_nt, australia_nz_rest, south_america_oceania or rest_of_world: decides the species';

create view analytics.pollen_daily as
 SELECT r.location_id,
    l.name AS location_name,
    r.local_date,
    r.pollen_type::text AS pollen_type,
    r.hours,
    r.count_min,
    r.count_max,
    round(r.count_mean::double precision * 10000::double precision) / 10000::double precision AS count_mean,
    r.max_risk_level::text AS max_risk_level
   FROM envdata.pollen_daily_rollup r
     JOIN envdata.location l USING (location_id);
grant SELECT on table analytics.pollen_daily to envdata_bi;
comment on view analytics.pollen_daily is 'Daily pollen per location: one row per location, local day (its time zone) and pollen type with the minimum, maximum and mean count and the highest risk level; hours says how complete the day is.';
comment on column analytics.pollen_daily.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_daily.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_daily.local_date is 'the location''s local day: 00:00 to 00:00 in its time zone (analytics.locations.timezone), 23 or 25 hours long on daylight-saving days';
comment on column analytics.pollen_daily.pollen_type is 'tree, grass or weed';
comment on column analytics.pollen_daily.hours is 'hourly rows that fell into the local day: the day is complete when this equals the day''s length (24, or 23/25 on daylight-saving days)';
comment on column analytics.pollen_daily.count_min is 'lowest hourly count of the local day, grains per m³';
comment on column analytics.pollen_daily.count_max is 'highest hourly count of the local day, grains per m³';
comment on column analytics.pollen_daily.count_mean is 'mean of the local day''s hourly counts present, grains per m³, to 4 decimals';
comment on column analytics.pollen_daily.max_risk_level is 'highest hourly risk of the local day, by severity: Low, Moderate, High, Very High (text: order by severity with array_position)';

create view analytics.pollen_forecast as
 SELECT l.location_id,
    l.name AS location_name,
    s.product,
    s.fetched_at,
    s.valid_at,
    s.valid_at_local,
    s.lead_hours,
    s.pollen_type,
    s.count,
    s.risk_level
   FROM envdata.pollen_snapshot_current s
     JOIN envdata.location l ON l.location_id = s.location_id
  WHERE s.product <> 'latest'::text;
grant SELECT on table analytics.pollen_forecast to envdata_bi;
comment on view analytics.pollen_forecast is 'The newest forecast of each product for each location (the one with the latest fetched_at), one row per location, product, forecast hour and pollen type.';
comment on column analytics.pollen_forecast.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_forecast.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_forecast.product is 'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
comment on column analytics.pollen_forecast.fetched_at is 'when envdata fetched it (the instant of the sync), UTC: the same for every row of one forecast';
comment on column analytics.pollen_forecast.valid_at is 'start of the hour forecast, UTC';
comment on column analytics.pollen_forecast.valid_at_local is 'start of the hour forecast as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.pollen_forecast.lead_hours is 'whole hours from fetched_at to valid_at, rounded down: fetched at 02:20, the hour 03:00 has lead 0, 05:00 lead 2, and 02:00 (begun before the fetch) lead -1';
comment on column analytics.pollen_forecast.pollen_type is 'tree, grass or weed';
comment on column analytics.pollen_forecast.count is 'grains (particles) per m³, ≥ 0, exactly as sent (not the sum of the species)';
comment on column analytics.pollen_forecast.risk_level is 'the service''s risk for this type: Low, Moderate, High, Very High (text: order by severity with array_position)';

create view analytics.pollen_hour_status as
 SELECT s.location_id,
    s.location_name,
    s.observed_at,
    s.observed_at_local,
    s.status
   FROM analytics.locations l
     CROSS JOIN LATERAL analytics.hour_status('pollen'::text, l.location_id) s(location_id, location_name, observed_at, observed_at_local, status);
grant SELECT on table analytics.pollen_hour_status to envdata_bi;
comment on view analytics.pollen_hour_status is 'One row per location and hour of the pollen history (from its first hour up to the last complete hour) with what the ledger knows of it. Generated, not stored: filter on location_id; for a span of time analytics.hour_status(''pollen'', location_id, from_at, to_at) generates only that span.';
comment on column analytics.pollen_hour_status.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_hour_status.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_hour_status.observed_at is 'start of the hour, UTC: joins the hourly views on (location_id, observed_at)';
comment on column analytics.pollen_hour_status.observed_at_local is 'start of the hour as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.pollen_hour_status.status is 'what the ledger knows of the hour, one of: landed (its rows are in the facts), quarantined (its records were refused; reasons in envdata.quarantine), missing_upstream (the service never sent it, even when asked again), not_covered (the service answered 404), no_data (the latest answer was "Data not available!"), not_fetched (nothing asked yet, or nothing recorded)';

create view analytics.pollen_hourly as
 SELECT p.location_id,
    l.name AS location_name,
    p.observed_at,
    p.pollen_type::text AS pollen_type,
    p.count,
    p.risk_level::text AS risk_level
   FROM envdata.pollen_hourly p
     JOIN envdata.location l USING (location_id);
grant SELECT on table analytics.pollen_hourly to envdata_bi;
comment on view analytics.pollen_hourly is 'The pollen history: one row per location, hour (observed_at, UTC) and pollen type (grass, tree, weed) with its count and risk level. Hours not landed have no row; analytics.coverage and analytics.pollen_hour_status say why.';
comment on column analytics.pollen_hourly.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_hourly.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_hourly.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.pollen_hourly.pollen_type is 'tree, grass or weed';
comment on column analytics.pollen_hourly.count is 'grains (particles) per m³, ≥ 0, exactly as sent (not the sum of the species)';
comment on column analytics.pollen_hourly.risk_level is 'the service''s risk for this type: Low, Moderate, High, Very High (text: order by severity with array_position)';

create view analytics.pollen_hourly_revisions as
 SELECT f.location_id,
    l.name AS location_name,
    f.observed_at,
    f.pollen_type::text AS pollen_type,
    f.count,
    f.risk_level::text AS risk_level,
    f.valid_from,
    f.valid_to,
    f.answer_id,
    f.replaced_by_answer,
    r.run_id AS replaced_by_run
   FROM envdata.pollen_hourly_revision f
     JOIN envdata.location l USING (location_id)
     LEFT JOIN envdata.answer r ON r.answer_id = f.replaced_by_answer;
grant SELECT on table analytics.pollen_hourly_revisions to envdata_bi;
comment on view analytics.pollen_hourly_revisions is 'Earlier values of analytics.pollen_hourly that a later answer replaced, shown as there, valid from valid_from (null: landed before envdata kept revisions) until valid_to; answer_id set them, replaced_by_answer of run replaced_by_run replaced them.';
comment on column analytics.pollen_hourly_revisions.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_hourly_revisions.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_hourly_revisions.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.pollen_hourly_revisions.pollen_type is 'tree, grass or weed';
comment on column analytics.pollen_hourly_revisions.count is 'grains (particles) per m³, ≥ 0, exactly as sent (not the sum of the species)';
comment on column analytics.pollen_hourly_revisions.risk_level is 'the service''s risk for this type: Low, Moderate, High, Very High (text: order by severity with array_position)';
comment on column analytics.pollen_hourly_revisions.valid_from is 'when these values landed, UTC; null: before envdata kept revisions (migration 0051)';
comment on column analytics.pollen_hourly_revisions.valid_to is 'when a later answer replaced them, UTC (its landing transaction''s start)';
comment on column analytics.pollen_hourly_revisions.answer_id is 'the answer that had set these values (analytics.answers)';
comment on column analytics.pollen_hourly_revisions.replaced_by_answer is 'the answer whose values replaced them (analytics.answers)';
comment on column analytics.pollen_hourly_revisions.replaced_by_run is 'the run that landed the replacing answer; null for a rebuild';

create view analytics.pollen_hourly_source as
 SELECT f.location_id,
    f.observed_at,
    f.pollen_type::text AS pollen_type,
    a.answer_id,
    encode(a.body_sha256, 'hex'::text) AS answer_sha256,
    a.fetched_at,
    a.landed_at,
    a.run_id,
    a.endpoint,
    a.http_status,
    f.answer_id IS NULL AS traced_by_window
   FROM envdata.pollen_hourly f
     LEFT JOIN LATERAL ( SELECT x.answer_id,
            x.chunk_id,
            x.run_id,
            x.location_id,
            x.dataset,
            x.window_from,
            x.window_to,
            x.endpoint,
            x.http_status,
            x.fetched_at,
            x.landed_at,
            x.body_sha256
           FROM envdata.answer x
          WHERE x.answer_id = f.answer_id
        UNION ALL
        ( SELECT x.answer_id,
            x.chunk_id,
            x.run_id,
            x.location_id,
            x.dataset,
            x.window_from,
            x.window_to,
            x.endpoint,
            x.http_status,
            x.fetched_at,
            x.landed_at,
            x.body_sha256
           FROM envdata.answer x
          WHERE f.answer_id IS NULL AND x.location_id = f.location_id AND x.dataset = 'pollen'::envdata.dataset AND x.window_from <= f.observed_at AND x.window_to > f.observed_at
          ORDER BY x.answer_id DESC
         LIMIT 1)) a ON true;
grant SELECT on table analytics.pollen_hourly_source to envdata_bi;
comment on view analytics.pollen_hourly_source is 'Where each row of analytics.pollen_hourly came from: the answer that last set its values (analytics.answers), its SHA-256, when it was fetched and landed, by which run and endpoint. traced_by_window: the row landed before envdata kept per-row sources (migration 0051) and is traced to the newest archived answer of its window.';
comment on column analytics.pollen_hourly_source.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_hourly_source.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.pollen_hourly_source.pollen_type is 'tree, grass or weed';
comment on column analytics.pollen_hourly_source.answer_id is 'the answer that last set the row''s values (analytics.answers)';
comment on column analytics.pollen_hourly_source.answer_sha256 is 'SHA-256 of the answer''s body exactly as received, hex: the same as sha256sum of the archived body, gunzipped';
comment on column analytics.pollen_hourly_source.fetched_at is 'when envdata received that answer, UTC';
comment on column analytics.pollen_hourly_source.landed_at is 'when that answer''s values landed, UTC';
comment on column analytics.pollen_hourly_source.run_id is 'the run that fetched it; null for a rebuild from the archive';
comment on column analytics.pollen_hourly_source.endpoint is 'the service endpoint path that answered (no query)';
comment on column analytics.pollen_hourly_source.http_status is 'HTTP status of that answer';
comment on column analytics.pollen_hourly_source.traced_by_window is 'the row landed before envdata kept per-row sources (migration 0051): traced to the newest archived answer of its window';

create view analytics.pollen_latest as
 SELECT l.location_id,
    l.name AS location_name,
    s.fetched_at,
    s.valid_at AS observed_at,
    s.valid_at_local AS observed_at_local,
    s.pollen_type,
    s.count,
    s.risk_level,
    s.stamped_at_fetch
   FROM envdata.pollen_snapshot_current s
     JOIN envdata.location l ON l.location_id = s.location_id
  WHERE s.product = 'latest'::text AND s.valid_at = (( SELECT max(n.valid_at) AS max
           FROM envdata.pollen_snapshot_current n
          WHERE n.product = 'latest'::text AND n.location_id = s.location_id));
grant SELECT on table analytics.pollen_latest to envdata_bi;
comment on view analytics.pollen_latest is 'The newest latest reading of each location (of its newest fetch, the newest hour), one row per location and pollen type.';
comment on column analytics.pollen_latest.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_latest.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_latest.fetched_at is 'when envdata fetched it (the instant of the sync), UTC';
comment on column analytics.pollen_latest.observed_at is 'start of the hour of the reading, UTC: the service''s own stamp rounded down to the hour; a reading the service sent without a stamp is stamped with the start of the hour it was fetched in (see stamped_at_fetch)';
comment on column analytics.pollen_latest.observed_at_local is 'start of the hour of the reading as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.pollen_latest.pollen_type is 'tree, grass or weed';
comment on column analytics.pollen_latest.count is 'grains (particles) per m³, ≥ 0, exactly as sent (not the sum of the species)';
comment on column analytics.pollen_latest.risk_level is 'the service''s risk for this type: Low, Moderate, High, Very High (text: order by severity with array_position)';
comment on column analytics.pollen_latest.stamped_at_fetch is 'true when the service sent the reading without a timestamp and envdata stamped it with the hour of the fetch (observed_at is then the start of the hour of fetched_at, UTC); false when observed_at is the service''s own stamp';

create view analytics.pollen_species_forecast as
 SELECT l.location_id,
    l.name AS location_name,
    s.product,
    s.fetched_at,
    s.valid_at,
    s.valid_at_local,
    s.lead_hours,
    sp.category::text AS category,
    sp.name AS species,
    s.count,
    s.risk_level
   FROM envdata.pollen_species_snapshot_current s
     JOIN envdata.location l ON l.location_id = s.location_id
     JOIN envdata.pollen_species sp ON sp.species_id = s.species_id
  WHERE s.product <> 'latest'::text;
grant SELECT on table analytics.pollen_species_forecast to envdata_bi;
comment on view analytics.pollen_species_forecast is 'The newest forecast of each product for each location (the one with the latest fetched_at), one row per location, product, forecast hour and species.';
comment on column analytics.pollen_species_forecast.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_species_forecast.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_species_forecast.product is 'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
comment on column analytics.pollen_species_forecast.fetched_at is 'when envdata fetched it (the instant of the sync), UTC: the same for every row of one forecast';
comment on column analytics.pollen_species_forecast.valid_at is 'start of the hour forecast, UTC';
comment on column analytics.pollen_species_forecast.valid_at_local is 'start of the hour forecast as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.pollen_species_forecast.lead_hours is 'whole hours from fetched_at to valid_at, rounded down: fetched at 02:20, the hour 03:00 has lead 0, 05:00 lead 2, and 02:00 (begun before the fetch) lead -1';
comment on column analytics.pollen_species_forecast.category is 'tree, grass, weed, or other for the bare Others count (species Others)';
comment on column analytics.pollen_species_forecast.species is 'species name as sent, spaces and slashes included (Birch, Poplar / Cottonwood)';
comment on column analytics.pollen_species_forecast.count is 'grains (particles) per m³, ≥ 0';
comment on column analytics.pollen_species_forecast.risk_level is 'per-species risk when envdata asks for it (ENVDATA_SPECIES_RISK) and the service sends it: Low, Moderate, High, Very High (text: order by severity with array_position); else null';

create view analytics.pollen_species_hourly as
 SELECT p.location_id,
    l.name AS location_name,
    p.observed_at,
    s.category::text AS category,
    s.name AS species,
    p.count,
    p.risk_level::text AS risk_level
   FROM envdata.pollen_species_hourly p
     JOIN envdata.location l USING (location_id)
     JOIN envdata.pollen_species s USING (species_id);
grant SELECT on table analytics.pollen_species_hourly to envdata_bi;
comment on view analytics.pollen_species_hourly is 'The pollen history per species: one row per location, hour (observed_at, UTC) and species, with its category, count and risk level.';
comment on column analytics.pollen_species_hourly.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_species_hourly.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_species_hourly.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.pollen_species_hourly.category is 'tree, grass, weed, or other for the bare Others count (species Others)';
comment on column analytics.pollen_species_hourly.species is 'species name as sent, spaces and slashes included (Birch, Poplar / Cottonwood)';
comment on column analytics.pollen_species_hourly.count is 'grains (particles) per m³, ≥ 0';
comment on column analytics.pollen_species_hourly.risk_level is 'per-species risk when envdata asks for it (ENVDATA_SPECIES_RISK) and the service sends it: Low, Moderate, High, Very High (text: order by severity with array_position); else null';

create view analytics.pollen_species_hourly_revisions as
 SELECT f.location_id,
    l.name AS location_name,
    f.observed_at,
    s.category::text AS category,
    s.name AS species,
    f.count,
    f.risk_level::text AS risk_level,
    f.valid_from,
    f.valid_to,
    f.answer_id,
    f.replaced_by_answer,
    r.run_id AS replaced_by_run
   FROM envdata.pollen_species_hourly_revision f
     JOIN envdata.location l USING (location_id)
     JOIN envdata.pollen_species s USING (species_id)
     LEFT JOIN envdata.answer r ON r.answer_id = f.replaced_by_answer;
grant SELECT on table analytics.pollen_species_hourly_revisions to envdata_bi;
comment on view analytics.pollen_species_hourly_revisions is 'Earlier values of analytics.pollen_species_hourly that a later answer replaced, shown as there, valid from valid_from (null: landed before envdata kept revisions) until valid_to; answer_id set them, replaced_by_answer of run replaced_by_run replaced them.';
comment on column analytics.pollen_species_hourly_revisions.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_species_hourly_revisions.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.pollen_species_hourly_revisions.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.pollen_species_hourly_revisions.category is 'tree, grass, weed, or other for the bare Others count (species Others)';
comment on column analytics.pollen_species_hourly_revisions.species is 'species name as sent, spaces and slashes included (Birch, Poplar / Cottonwood)';
comment on column analytics.pollen_species_hourly_revisions.count is 'grains (particles) per m³, ≥ 0';
comment on column analytics.pollen_species_hourly_revisions.risk_level is 'per-species risk when envdata asks for it (ENVDATA_SPECIES_RISK) and the service sends it: Low, Moderate, High, Very High (text: order by severity with array_position); else null';
comment on column analytics.pollen_species_hourly_revisions.valid_from is 'when these values landed, UTC; null: before envdata kept revisions (migration 0051)';
comment on column analytics.pollen_species_hourly_revisions.valid_to is 'when a later answer replaced them, UTC (its landing transaction''s start)';
comment on column analytics.pollen_species_hourly_revisions.answer_id is 'the answer that had set these values (analytics.answers)';
comment on column analytics.pollen_species_hourly_revisions.replaced_by_answer is 'the answer whose values replaced them (analytics.answers)';
comment on column analytics.pollen_species_hourly_revisions.replaced_by_run is 'the run that landed the replacing answer; null for a rebuild';

create view analytics.pollen_species_hourly_source as
 SELECT f.location_id,
    f.observed_at,
    s.category::text AS category,
    s.name AS species,
    a.answer_id,
    encode(a.body_sha256, 'hex'::text) AS answer_sha256,
    a.fetched_at,
    a.landed_at,
    a.run_id,
    a.endpoint,
    a.http_status,
    f.answer_id IS NULL AS traced_by_window
   FROM envdata.pollen_species_hourly f
     JOIN envdata.pollen_species s USING (species_id)
     LEFT JOIN LATERAL ( SELECT x.answer_id,
            x.chunk_id,
            x.run_id,
            x.location_id,
            x.dataset,
            x.window_from,
            x.window_to,
            x.endpoint,
            x.http_status,
            x.fetched_at,
            x.landed_at,
            x.body_sha256
           FROM envdata.answer x
          WHERE x.answer_id = f.answer_id
        UNION ALL
        ( SELECT x.answer_id,
            x.chunk_id,
            x.run_id,
            x.location_id,
            x.dataset,
            x.window_from,
            x.window_to,
            x.endpoint,
            x.http_status,
            x.fetched_at,
            x.landed_at,
            x.body_sha256
           FROM envdata.answer x
          WHERE f.answer_id IS NULL AND x.location_id = f.location_id AND x.dataset = 'pollen'::envdata.dataset AND x.window_from <= f.observed_at AND x.window_to > f.observed_at
          ORDER BY x.answer_id DESC
         LIMIT 1)) a ON true;
grant SELECT on table analytics.pollen_species_hourly_source to envdata_bi;
comment on view analytics.pollen_species_hourly_source is 'Where each row of analytics.pollen_species_hourly came from: the answer that last set its values (analytics.answers), its SHA-256, when it was fetched and landed, by which run and endpoint. traced_by_window: the row landed before envdata kept per-row sources (migration 0051) and is traced to the newest archived answer of its window.';
comment on column analytics.pollen_species_hourly_source.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.pollen_species_hourly_source.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.pollen_species_hourly_source.category is 'tree, grass, weed, or other for the bare Others count (species Others)';
comment on column analytics.pollen_species_hourly_source.species is 'species name as sent, spaces and slashes included (Birch, Poplar / Cottonwood)';
comment on column analytics.pollen_species_hourly_source.answer_id is 'the answer that last set the row''s values (analytics.answers)';
comment on column analytics.pollen_species_hourly_source.answer_sha256 is 'SHA-256 of the answer''s body exactly as received, hex: the same as sha256sum of the archived body, gunzipped';
comment on column analytics.pollen_species_hourly_source.fetched_at is 'when envdata received that answer, UTC';
comment on column analytics.pollen_species_hourly_source.landed_at is 'when that answer''s values landed, UTC';
comment on column analytics.pollen_species_hourly_source.run_id is 'the run that fetched it; null for a rebuild from the archive';
comment on column analytics.pollen_species_hourly_source.endpoint is 'the service endpoint path that answered (no query)';
comment on column analytics.pollen_species_hourly_source.http_status is 'HTTP status of that answer';
comment on column analytics.pollen_species_hourly_source.traced_by_window is 'the row landed before envdata kept per-row sources (migration 0051): traced to the newest archived answer of its window';

create view analytics.weather_daily as
 SELECT r.location_id,
    l.name AS location_name,
    r.local_date,
    r.hours,
    round(r.temperature_c_min::double precision * 100::double precision) / 100::double precision AS temperature_c_min,
    round(r.temperature_c_max::double precision * 100::double precision) / 100::double precision AS temperature_c_max,
    round(r.temperature_c_mean::double precision * 10000::double precision) / 10000::double precision AS temperature_c_mean,
    round(r.apparent_temperature_c_min::double precision * 100::double precision) / 100::double precision AS apparent_temperature_c_min,
    round(r.apparent_temperature_c_max::double precision * 100::double precision) / 100::double precision AS apparent_temperature_c_max,
    round(r.apparent_temperature_c_mean::double precision * 10000::double precision) / 10000::double precision AS apparent_temperature_c_mean,
    round(r.dew_point_c_min::double precision * 100::double precision) / 100::double precision AS dew_point_c_min,
    round(r.dew_point_c_max::double precision * 100::double precision) / 100::double precision AS dew_point_c_max,
    round(r.dew_point_c_mean::double precision * 10000::double precision) / 10000::double precision AS dew_point_c_mean,
    round(r.humidity_pct_min::double precision * 100::double precision) / 100::double precision AS humidity_pct_min,
    round(r.humidity_pct_max::double precision * 100::double precision) / 100::double precision AS humidity_pct_max,
    round(r.humidity_pct_mean::double precision * 10000::double precision) / 10000::double precision AS humidity_pct_mean,
    round(r.pressure_hpa_min::double precision * 100::double precision) / 100::double precision AS pressure_hpa_min,
    round(r.pressure_hpa_max::double precision * 100::double precision) / 100::double precision AS pressure_hpa_max,
    round(r.pressure_hpa_mean::double precision * 10000::double precision) / 10000::double precision AS pressure_hpa_mean,
    round(r.wind_speed_ms_min::double precision * 100::double precision) / 100::double precision AS wind_speed_ms_min,
    round(r.wind_speed_ms_max::double precision * 100::double precision) / 100::double precision AS wind_speed_ms_max,
    round(r.wind_speed_ms_mean::double precision * 10000::double precision) / 10000::double precision AS wind_speed_ms_mean,
    round(r.wind_gust_ms_min::double precision * 100::double precision) / 100::double precision AS wind_gust_ms_min,
    round(r.wind_gust_ms_max::double precision * 100::double precision) / 100::double precision AS wind_gust_ms_max,
    round(r.wind_gust_ms_mean::double precision * 10000::double precision) / 10000::double precision AS wind_gust_ms_mean,
    round(r.cloud_cover_pct_min::double precision * 100::double precision) / 100::double precision AS cloud_cover_pct_min,
    round(r.cloud_cover_pct_max::double precision * 100::double precision) / 100::double precision AS cloud_cover_pct_max,
    round(r.cloud_cover_pct_mean::double precision * 10000::double precision) / 10000::double precision AS cloud_cover_pct_mean,
    round(r.visibility_km_min::double precision * 100::double precision) / 100::double precision AS visibility_km_min,
    round(r.visibility_km_max::double precision * 100::double precision) / 100::double precision AS visibility_km_max,
    round(r.visibility_km_mean::double precision * 10000::double precision) / 10000::double precision AS visibility_km_mean,
    round(r.uv_index_min::double precision * 100::double precision) / 100::double precision AS uv_index_min,
    round(r.uv_index_max::double precision * 100::double precision) / 100::double precision AS uv_index_max,
    round(r.uv_index_mean::double precision * 10000::double precision) / 10000::double precision AS uv_index_mean,
    round(r.ozone_du_min::double precision * 100::double precision) / 100::double precision AS ozone_du_min,
    round(r.ozone_du_max::double precision * 100::double precision) / 100::double precision AS ozone_du_max,
    round(r.ozone_du_mean::double precision * 10000::double precision) / 10000::double precision AS ozone_du_mean,
    round(r.precip_intensity_mm_h_min::double precision * 100::double precision) / 100::double precision AS precip_intensity_mm_h_min,
    round(r.precip_intensity_mm_h_max::double precision * 100::double precision) / 100::double precision AS precip_intensity_mm_h_max,
    round(r.precip_intensity_mm_h_mean::double precision * 10000::double precision) / 10000::double precision AS precip_intensity_mm_h_mean,
    round(r.precip_probability_pct_min::double precision * 100::double precision) / 100::double precision AS precip_probability_pct_min,
    round(r.precip_probability_pct_max::double precision * 100::double precision) / 100::double precision AS precip_probability_pct_max,
    round(r.precip_probability_pct_mean::double precision * 10000::double precision) / 10000::double precision AS precip_probability_pct_mean,
    round(r.precip_total_mm::double precision * 100::double precision) / 100::double precision AS precip_total_mm
   FROM envdata.weather_daily_rollup r
     JOIN envdata.location l USING (location_id);
grant SELECT on table analytics.weather_daily to envdata_bi;
comment on view analytics.weather_daily is 'Daily weather per location: one row per location and local day (its time zone) with the minimum, maximum and mean of each measure over the hours that landed; hours says how complete the day is.';
comment on column analytics.weather_daily.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_daily.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.weather_daily.local_date is 'the location''s local day: 00:00 to 00:00 in its time zone (analytics.locations.timezone), 23 or 25 hours long on daylight-saving days';
comment on column analytics.weather_daily.hours is 'hourly rows that fell into the local day: the day is complete when this equals the day''s length (24, or 23/25 on daylight-saving days)';
comment on column analytics.weather_daily.temperature_c_min is 'lowest hour of the local day: air temperature, °C, to 2 decimals';
comment on column analytics.weather_daily.temperature_c_max is 'highest hour of the local day: air temperature, °C, to 2 decimals';
comment on column analytics.weather_daily.temperature_c_mean is 'mean of the local day''s hours present: air temperature, °C, to 4 decimals';
comment on column analytics.weather_daily.apparent_temperature_c_min is 'lowest hour of the local day: "feels like" temperature, °C, to 2 decimals';
comment on column analytics.weather_daily.apparent_temperature_c_max is 'highest hour of the local day: "feels like" temperature, °C, to 2 decimals';
comment on column analytics.weather_daily.apparent_temperature_c_mean is 'mean of the local day''s hours present: "feels like" temperature, °C, to 4 decimals';
comment on column analytics.weather_daily.dew_point_c_min is 'lowest hour of the local day: dew point, °C, to 2 decimals';
comment on column analytics.weather_daily.dew_point_c_max is 'highest hour of the local day: dew point, °C, to 2 decimals';
comment on column analytics.weather_daily.dew_point_c_mean is 'mean of the local day''s hours present: dew point, °C, to 4 decimals';
comment on column analytics.weather_daily.humidity_pct_min is 'lowest hour of the local day: relative humidity, % (0–100), to 2 decimals';
comment on column analytics.weather_daily.humidity_pct_max is 'highest hour of the local day: relative humidity, % (0–100), to 2 decimals';
comment on column analytics.weather_daily.humidity_pct_mean is 'mean of the local day''s hours present: relative humidity, % (0–100), to 4 decimals';
comment on column analytics.weather_daily.pressure_hpa_min is 'lowest hour of the local day: air pressure, hPa, to 2 decimals';
comment on column analytics.weather_daily.pressure_hpa_max is 'highest hour of the local day: air pressure, hPa, to 2 decimals';
comment on column analytics.weather_daily.pressure_hpa_mean is 'mean of the local day''s hours present: air pressure, hPa, to 4 decimals';
comment on column analytics.weather_daily.wind_speed_ms_min is 'lowest hour of the local day: wind speed, m/s, to 2 decimals';
comment on column analytics.weather_daily.wind_speed_ms_max is 'highest hour of the local day: wind speed, m/s, to 2 decimals';
comment on column analytics.weather_daily.wind_speed_ms_mean is 'mean of the local day''s hours present: wind speed, m/s, to 4 decimals';
comment on column analytics.weather_daily.wind_gust_ms_min is 'lowest hour of the local day: wind gust, m/s, to 2 decimals';
comment on column analytics.weather_daily.wind_gust_ms_max is 'highest hour of the local day: wind gust, m/s, to 2 decimals';
comment on column analytics.weather_daily.wind_gust_ms_mean is 'mean of the local day''s hours present: wind gust, m/s, to 4 decimals';
comment on column analytics.weather_daily.cloud_cover_pct_min is 'lowest hour of the local day: cloud cover, % (0–100), to 2 decimals';
comment on column analytics.weather_daily.cloud_cover_pct_max is 'highest hour of the local day: cloud cover, % (0–100), to 2 decimals';
comment on column analytics.weather_daily.cloud_cover_pct_mean is 'mean of the local day''s hours present: cloud cover, % (0–100), to 4 decimals';
comment on column analytics.weather_daily.visibility_km_min is 'lowest hour of the local day: visibility, km, to 2 decimals';
comment on column analytics.weather_daily.visibility_km_max is 'highest hour of the local day: visibility, km, to 2 decimals';
comment on column analytics.weather_daily.visibility_km_mean is 'mean of the local day''s hours present: visibility, km, to 4 decimals';
comment on column analytics.weather_daily.uv_index_min is 'lowest hour of the local day: UV index, ≥ 0, to 2 decimals';
comment on column analytics.weather_daily.uv_index_max is 'highest hour of the local day: UV index, ≥ 0, to 2 decimals';
comment on column analytics.weather_daily.uv_index_mean is 'mean of the local day''s hours present: UV index, ≥ 0, to 4 decimals';
comment on column analytics.weather_daily.ozone_du_min is 'lowest hour of the local day: total column ozone, Dobson units (not ground-level ozone), to 2 decimals';
comment on column analytics.weather_daily.ozone_du_max is 'highest hour of the local day: total column ozone, Dobson units (not ground-level ozone), to 2 decimals';
comment on column analytics.weather_daily.ozone_du_mean is 'mean of the local day''s hours present: total column ozone, Dobson units (not ground-level ozone), to 4 decimals';
comment on column analytics.weather_daily.precip_intensity_mm_h_min is 'lowest hour of the local day: precipitation intensity, mm/h, to 2 decimals';
comment on column analytics.weather_daily.precip_intensity_mm_h_max is 'highest hour of the local day: precipitation intensity, mm/h, to 2 decimals';
comment on column analytics.weather_daily.precip_intensity_mm_h_mean is 'mean of the local day''s hours present: precipitation intensity, mm/h, to 4 decimals';
comment on column analytics.weather_daily.precip_probability_pct_min is 'lowest hour of the local day: precipitation probability, % (0–100), to 2 decimals';
comment on column analytics.weather_daily.precip_probability_pct_max is 'highest hour of the local day: precipitation probability, % (0–100), to 2 decimals';
comment on column analytics.weather_daily.precip_probability_pct_mean is 'mean of the local day''s hours present: precipitation probability, % (0–100), to 4 decimals';
comment on column analytics.weather_daily.precip_total_mm is 'precipitation of the local day, mm: the sum of the hourly intensities (each hour''s mm/h over one hour), to 2 decimals';

create view analytics.weather_forecast as
 SELECT l.location_id,
    l.name AS location_name,
    s.product,
    s.fetched_at,
    s.valid_at,
    s.valid_at_local,
    s.lead_hours,
    round(s.temperature_c::double precision * 100::double precision) / 100::double precision AS temperature_c,
    round(s.apparent_temperature_c::double precision * 100::double precision) / 100::double precision AS apparent_temperature_c,
    round(s.dew_point_c::double precision * 100::double precision) / 100::double precision AS dew_point_c,
    round(s.humidity_fraction::double precision * 10000::double precision) / 100::double precision AS humidity_pct,
    round(s.pressure_hpa::double precision * 100::double precision) / 100::double precision AS pressure_hpa,
    round(s.wind_speed_ms::double precision * 100::double precision) / 100::double precision AS wind_speed_ms,
    round(s.wind_gust_ms::double precision * 100::double precision) / 100::double precision AS wind_gust_ms,
    round(s.wind_bearing_deg::double precision * 100::double precision) / 100::double precision AS wind_bearing_deg,
    round(s.cloud_cover_fraction::double precision * 10000::double precision) / 100::double precision AS cloud_cover_pct,
    round(s.visibility_km::double precision * 100::double precision) / 100::double precision AS visibility_km,
    round(s.uv_index::double precision * 100::double precision) / 100::double precision AS uv_index,
    round(s.ozone_du::double precision * 100::double precision) / 100::double precision AS ozone_du,
    round(s.precip_intensity_mm_h::double precision * 100::double precision) / 100::double precision AS precip_intensity_mm_h,
    round(s.precip_probability_fraction::double precision * 10000::double precision) / 100::double precision AS precip_probability_pct,
    s.precip_type,
    s.summary,
    s.icon
   FROM envdata.weather_snapshot_current s
     JOIN envdata.location l ON l.location_id = s.location_id
  WHERE s.product <> 'latest'::text;
grant SELECT on table analytics.weather_forecast to envdata_bi;
comment on view analytics.weather_forecast is 'The newest forecast of each product for each location (the one with the latest fetched_at), one row per location, product and forecast hour.';
comment on column analytics.weather_forecast.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_forecast.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.weather_forecast.product is 'the forecast: forecast_48h (pollen, hourly), forecast_120h (pollen, 3-hourly), forecast_72h (weather, hourly)';
comment on column analytics.weather_forecast.fetched_at is 'when envdata fetched it (the instant of the sync), UTC: the same for every row of one forecast';
comment on column analytics.weather_forecast.valid_at is 'start of the hour forecast, UTC';
comment on column analytics.weather_forecast.valid_at_local is 'start of the hour forecast as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.weather_forecast.lead_hours is 'whole hours from fetched_at to valid_at, rounded down: fetched at 02:20, the hour 03:00 has lead 0, 05:00 lead 2, and 02:00 (begun before the fetch) lead -1';
comment on column analytics.weather_forecast.temperature_c is 'air temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.apparent_temperature_c is '"feels like" temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.dew_point_c is 'dew point, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.humidity_pct is 'relative humidity, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_forecast.pressure_hpa is 'air pressure, hPa, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.wind_speed_ms is 'wind speed, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.wind_gust_ms is 'wind gust, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.wind_bearing_deg is 'wind bearing, degrees 0–360, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.cloud_cover_pct is 'cloud cover, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_forecast.visibility_km is 'visibility, km, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.uv_index is 'UV index, ≥ 0, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.ozone_du is 'total column ozone, Dobson units (not ground-level ozone), to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.precip_intensity_mm_h is 'precipitation intensity, mm/h, to 2 decimals, as the service sends it';
comment on column analytics.weather_forecast.precip_probability_pct is 'precipitation probability, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_forecast.precip_type is 'precipitation type as sent (rain, snow, …)';
comment on column analytics.weather_forecast.summary is 'summary as sent (Partly Cloudy), in the service''s language (ENVDATA_LANGUAGE)';
comment on column analytics.weather_forecast.icon is 'cloudy, partly-cloudy, clear, snow, rain or fog; null if the sent icon maps to none';

create view analytics.weather_hour_status as
 SELECT s.location_id,
    s.location_name,
    s.observed_at,
    s.observed_at_local,
    s.status
   FROM analytics.locations l
     CROSS JOIN LATERAL analytics.hour_status('weather'::text, l.location_id) s(location_id, location_name, observed_at, observed_at_local, status);
grant SELECT on table analytics.weather_hour_status to envdata_bi;
comment on view analytics.weather_hour_status is 'One row per location and hour of the weather history (from its first hour up to the last complete hour) with what the ledger knows of it. Generated, not stored: filter on location_id; for a span of time analytics.hour_status(''weather'', location_id, from_at, to_at) generates only that span.';
comment on column analytics.weather_hour_status.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_hour_status.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.weather_hour_status.observed_at is 'start of the hour, UTC: joins the hourly views on (location_id, observed_at)';
comment on column analytics.weather_hour_status.observed_at_local is 'start of the hour as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.weather_hour_status.status is 'what the ledger knows of the hour, one of: landed (its rows are in the facts), quarantined (its records were refused; reasons in envdata.quarantine), missing_upstream (the service never sent it, even when asked again), not_covered (the service answered 404), no_data (the latest answer was "Data not available!"), not_fetched (nothing asked yet, or nothing recorded)';

create view analytics.weather_hourly as
 SELECT w.location_id,
    l.name AS location_name,
    w.observed_at,
    round(w.temperature_c::double precision * 100::double precision) / 100::double precision AS temperature_c,
    round(w.apparent_temperature_c::double precision * 100::double precision) / 100::double precision AS apparent_temperature_c,
    round(w.dew_point_c::double precision * 100::double precision) / 100::double precision AS dew_point_c,
    round(w.humidity_fraction::double precision * 10000::double precision) / 100::double precision AS humidity_pct,
    round(w.pressure_hpa::double precision * 100::double precision) / 100::double precision AS pressure_hpa,
    round(w.wind_speed_ms::double precision * 100::double precision) / 100::double precision AS wind_speed_ms,
    round(w.wind_gust_ms::double precision * 100::double precision) / 100::double precision AS wind_gust_ms,
    round(w.wind_bearing_deg::double precision * 100::double precision) / 100::double precision AS wind_bearing_deg,
    round(w.cloud_cover_fraction::double precision * 10000::double precision) / 100::double precision AS cloud_cover_pct,
    round(w.visibility_km::double precision * 100::double precision) / 100::double precision AS visibility_km,
    round(w.uv_index::double precision * 100::double precision) / 100::double precision AS uv_index,
    round(w.ozone_du::double precision * 100::double precision) / 100::double precision AS ozone_du,
    round(w.precip_intensity_mm_h::double precision * 100::double precision) / 100::double precision AS precip_intensity_mm_h,
    round(w.precip_probability_fraction::double precision * 10000::double precision) / 100::double precision AS precip_probability_pct,
    w.precip_type,
    w.summary,
    w.icon::text AS icon
   FROM envdata.weather_hourly w
     JOIN envdata.location l USING (location_id);
grant SELECT on table analytics.weather_hourly to envdata_bi;
comment on view analytics.weather_hourly is 'The weather history: one row per location and hour (observed_at, UTC) as the service sent it, shares in percent. Hours not landed have no row; analytics.coverage and analytics.weather_hour_status say why.';
comment on column analytics.weather_hourly.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_hourly.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.weather_hourly.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.weather_hourly.temperature_c is 'air temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.apparent_temperature_c is '"feels like" temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.dew_point_c is 'dew point, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.humidity_pct is 'relative humidity, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_hourly.pressure_hpa is 'air pressure, hPa, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.wind_speed_ms is 'wind speed, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.wind_gust_ms is 'wind gust, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.wind_bearing_deg is 'wind bearing, degrees 0–360, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.cloud_cover_pct is 'cloud cover, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_hourly.visibility_km is 'visibility, km, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.uv_index is 'UV index, ≥ 0, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.ozone_du is 'total column ozone, Dobson units (not ground-level ozone), to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.precip_intensity_mm_h is 'precipitation intensity, mm/h, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly.precip_probability_pct is 'precipitation probability, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_hourly.precip_type is 'precipitation type as sent (rain, snow, …)';
comment on column analytics.weather_hourly.summary is 'summary as sent (Partly Cloudy), in the service''s language (ENVDATA_LANGUAGE)';
comment on column analytics.weather_hourly.icon is 'cloudy, partly-cloudy, clear, snow, rain or fog; null if the sent icon maps to none';

create view analytics.weather_hourly_revisions as
 SELECT f.location_id,
    l.name AS location_name,
    f.observed_at,
    round(f.temperature_c::double precision * 100::double precision) / 100::double precision AS temperature_c,
    round(f.apparent_temperature_c::double precision * 100::double precision) / 100::double precision AS apparent_temperature_c,
    round(f.dew_point_c::double precision * 100::double precision) / 100::double precision AS dew_point_c,
    round(f.humidity_fraction::double precision * 10000::double precision) / 100::double precision AS humidity_pct,
    round(f.pressure_hpa::double precision * 100::double precision) / 100::double precision AS pressure_hpa,
    round(f.wind_speed_ms::double precision * 100::double precision) / 100::double precision AS wind_speed_ms,
    round(f.wind_gust_ms::double precision * 100::double precision) / 100::double precision AS wind_gust_ms,
    round(f.wind_bearing_deg::double precision * 100::double precision) / 100::double precision AS wind_bearing_deg,
    round(f.cloud_cover_fraction::double precision * 10000::double precision) / 100::double precision AS cloud_cover_pct,
    round(f.visibility_km::double precision * 100::double precision) / 100::double precision AS visibility_km,
    round(f.uv_index::double precision * 100::double precision) / 100::double precision AS uv_index,
    round(f.ozone_du::double precision * 100::double precision) / 100::double precision AS ozone_du,
    round(f.precip_intensity_mm_h::double precision * 100::double precision) / 100::double precision AS precip_intensity_mm_h,
    round(f.precip_probability_fraction::double precision * 10000::double precision) / 100::double precision AS precip_probability_pct,
    f.precip_type,
    f.summary,
    f.icon::text AS icon,
    f.valid_from,
    f.valid_to,
    f.answer_id,
    f.replaced_by_answer,
    r.run_id AS replaced_by_run
   FROM envdata.weather_hourly_revision f
     JOIN envdata.location l USING (location_id)
     LEFT JOIN envdata.answer r ON r.answer_id = f.replaced_by_answer;
grant SELECT on table analytics.weather_hourly_revisions to envdata_bi;
comment on view analytics.weather_hourly_revisions is 'Earlier values of analytics.weather_hourly that a later answer replaced, shown as there, valid from valid_from (null: landed before envdata kept revisions) until valid_to; answer_id set them, replaced_by_answer of run replaced_by_run replaced them.';
comment on column analytics.weather_hourly_revisions.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_hourly_revisions.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.weather_hourly_revisions.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.weather_hourly_revisions.temperature_c is 'air temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.apparent_temperature_c is '"feels like" temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.dew_point_c is 'dew point, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.humidity_pct is 'relative humidity, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_hourly_revisions.pressure_hpa is 'air pressure, hPa, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.wind_speed_ms is 'wind speed, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.wind_gust_ms is 'wind gust, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.wind_bearing_deg is 'wind bearing, degrees 0–360, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.cloud_cover_pct is 'cloud cover, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_hourly_revisions.visibility_km is 'visibility, km, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.uv_index is 'UV index, ≥ 0, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.ozone_du is 'total column ozone, Dobson units (not ground-level ozone), to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.precip_intensity_mm_h is 'precipitation intensity, mm/h, to 2 decimals, as the service sends it';
comment on column analytics.weather_hourly_revisions.precip_probability_pct is 'precipitation probability, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_hourly_revisions.precip_type is 'precipitation type as sent (rain, snow, …)';
comment on column analytics.weather_hourly_revisions.summary is 'summary as sent (Partly Cloudy), in the service''s language (ENVDATA_LANGUAGE)';
comment on column analytics.weather_hourly_revisions.icon is 'cloudy, partly-cloudy, clear, snow, rain or fog; null if the sent icon maps to none';
comment on column analytics.weather_hourly_revisions.valid_from is 'when these values landed, UTC; null: before envdata kept revisions (migration 0051)';
comment on column analytics.weather_hourly_revisions.valid_to is 'when a later answer replaced them, UTC (its landing transaction''s start)';
comment on column analytics.weather_hourly_revisions.answer_id is 'the answer that had set these values (analytics.answers)';
comment on column analytics.weather_hourly_revisions.replaced_by_answer is 'the answer whose values replaced them (analytics.answers)';
comment on column analytics.weather_hourly_revisions.replaced_by_run is 'the run that landed the replacing answer; null for a rebuild';

create view analytics.weather_hourly_source as
 SELECT f.location_id,
    f.observed_at,
    a.answer_id,
    encode(a.body_sha256, 'hex'::text) AS answer_sha256,
    a.fetched_at,
    a.landed_at,
    a.run_id,
    a.endpoint,
    a.http_status,
    f.answer_id IS NULL AS traced_by_window
   FROM envdata.weather_hourly f
     LEFT JOIN LATERAL ( SELECT x.answer_id,
            x.chunk_id,
            x.run_id,
            x.location_id,
            x.dataset,
            x.window_from,
            x.window_to,
            x.endpoint,
            x.http_status,
            x.fetched_at,
            x.landed_at,
            x.body_sha256
           FROM envdata.answer x
          WHERE x.answer_id = f.answer_id
        UNION ALL
        ( SELECT x.answer_id,
            x.chunk_id,
            x.run_id,
            x.location_id,
            x.dataset,
            x.window_from,
            x.window_to,
            x.endpoint,
            x.http_status,
            x.fetched_at,
            x.landed_at,
            x.body_sha256
           FROM envdata.answer x
          WHERE f.answer_id IS NULL AND x.location_id = f.location_id AND x.dataset = 'weather'::envdata.dataset AND x.window_from <= f.observed_at AND x.window_to > f.observed_at
          ORDER BY x.answer_id DESC
         LIMIT 1)) a ON true;
grant SELECT on table analytics.weather_hourly_source to envdata_bi;
comment on view analytics.weather_hourly_source is 'Where each row of analytics.weather_hourly came from: the answer that last set its values (analytics.answers), its SHA-256, when it was fetched and landed, by which run and endpoint. traced_by_window: the row landed before envdata kept per-row sources (migration 0051) and is traced to the newest archived answer of its window.';
comment on column analytics.weather_hourly_source.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_hourly_source.observed_at is 'start of the hour, UTC (the record''s instant rounded down to the hour)';
comment on column analytics.weather_hourly_source.answer_id is 'the answer that last set the row''s values (analytics.answers)';
comment on column analytics.weather_hourly_source.answer_sha256 is 'SHA-256 of the answer''s body exactly as received, hex: the same as sha256sum of the archived body, gunzipped';
comment on column analytics.weather_hourly_source.fetched_at is 'when envdata received that answer, UTC';
comment on column analytics.weather_hourly_source.landed_at is 'when that answer''s values landed, UTC';
comment on column analytics.weather_hourly_source.run_id is 'the run that fetched it; null for a rebuild from the archive';
comment on column analytics.weather_hourly_source.endpoint is 'the service endpoint path that answered (no query)';
comment on column analytics.weather_hourly_source.http_status is 'HTTP status of that answer';
comment on column analytics.weather_hourly_source.traced_by_window is 'the row landed before envdata kept per-row sources (migration 0051): traced to the newest archived answer of its window';

create view analytics.weather_latest as
 SELECT l.location_id,
    l.name AS location_name,
    s.fetched_at,
    s.valid_at AS observed_at,
    s.valid_at_local AS observed_at_local,
    round(s.temperature_c::double precision * 100::double precision) / 100::double precision AS temperature_c,
    round(s.apparent_temperature_c::double precision * 100::double precision) / 100::double precision AS apparent_temperature_c,
    round(s.dew_point_c::double precision * 100::double precision) / 100::double precision AS dew_point_c,
    round(s.humidity_fraction::double precision * 10000::double precision) / 100::double precision AS humidity_pct,
    round(s.pressure_hpa::double precision * 100::double precision) / 100::double precision AS pressure_hpa,
    round(s.wind_speed_ms::double precision * 100::double precision) / 100::double precision AS wind_speed_ms,
    round(s.wind_gust_ms::double precision * 100::double precision) / 100::double precision AS wind_gust_ms,
    round(s.wind_bearing_deg::double precision * 100::double precision) / 100::double precision AS wind_bearing_deg,
    round(s.cloud_cover_fraction::double precision * 10000::double precision) / 100::double precision AS cloud_cover_pct,
    round(s.visibility_km::double precision * 100::double precision) / 100::double precision AS visibility_km,
    round(s.uv_index::double precision * 100::double precision) / 100::double precision AS uv_index,
    round(s.ozone_du::double precision * 100::double precision) / 100::double precision AS ozone_du,
    round(s.precip_intensity_mm_h::double precision * 100::double precision) / 100::double precision AS precip_intensity_mm_h,
    round(s.precip_probability_fraction::double precision * 10000::double precision) / 100::double precision AS precip_probability_pct,
    s.precip_type,
    s.summary,
    s.icon,
    s.stamped_at_fetch
   FROM envdata.weather_snapshot_current s
     JOIN envdata.location l ON l.location_id = s.location_id
  WHERE s.product = 'latest'::text AND s.valid_at = (( SELECT max(n.valid_at) AS max
           FROM envdata.weather_snapshot_current n
          WHERE n.product = 'latest'::text AND n.location_id = s.location_id));
grant SELECT on table analytics.weather_latest to envdata_bi;
comment on view analytics.weather_latest is 'The newest latest reading of each location (of its newest fetch, the newest hour), one row per location.';
comment on column analytics.weather_latest.location_id is 'key of the location in every analytics view (analytics.locations)';
comment on column analytics.weather_latest.location_name is 'name of the location, as in analytics.locations';
comment on column analytics.weather_latest.fetched_at is 'when envdata fetched it (the instant of the sync), UTC';
comment on column analytics.weather_latest.observed_at is 'start of the hour of the reading, UTC: the service''s own stamp rounded down to the hour; a reading the service sent without a stamp is stamped with the start of the hour it was fetched in (see stamped_at_fetch)';
comment on column analytics.weather_latest.observed_at_local is 'start of the hour of the reading as a wall-clock time in the location''s time zone (analytics.locations.timezone)';
comment on column analytics.weather_latest.temperature_c is 'air temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.apparent_temperature_c is '"feels like" temperature, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.dew_point_c is 'dew point, °C, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.humidity_pct is 'relative humidity, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_latest.pressure_hpa is 'air pressure, hPa, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.wind_speed_ms is 'wind speed, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.wind_gust_ms is 'wind gust, m/s, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.wind_bearing_deg is 'wind bearing, degrees 0–360, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.cloud_cover_pct is 'cloud cover, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_latest.visibility_km is 'visibility, km, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.uv_index is 'UV index, ≥ 0, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.ozone_du is 'total column ozone, Dobson units (not ground-level ozone), to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.precip_intensity_mm_h is 'precipitation intensity, mm/h, to 2 decimals, as the service sends it';
comment on column analytics.weather_latest.precip_probability_pct is 'precipitation probability, % (0–100), to 2 decimals; the service sends a fraction or a percentage, envdata stores a fraction and shows it ×100';
comment on column analytics.weather_latest.precip_type is 'precipitation type as sent (rain, snow, …)';
comment on column analytics.weather_latest.summary is 'summary as sent (Partly Cloudy), in the service''s language (ENVDATA_LANGUAGE)';
comment on column analytics.weather_latest.icon is 'cloudy, partly-cloudy, clear, snow, rain or fog; null if the sent icon maps to none';
comment on column analytics.weather_latest.stamped_at_fetch is 'true when the service sent the reading without a timestamp and envdata stamped it with the hour of the fetch (observed_at is then the start of the hour of fetched_at, UTC); false when observed_at is the service''s own stamp';

create view envdata.raw_payload as
 SELECT DISTINCT ON (a.chunk_id) a.chunk_id,
    a.answer_id,
    a.fetched_at,
    a.http_status,
    b.encoding,
    b.body,
    b.body_bytes,
    a.run_id,
    a.location_id,
    a.dataset,
    a.window_from,
    a.window_to,
    a.body_sha256,
    a.endpoint
   FROM envdata.answer a
     JOIN envdata.answer_body b USING (body_sha256)
  WHERE a.chunk_id IS NOT NULL
  ORDER BY a.chunk_id, a.answer_id DESC;
comment on view envdata.raw_payload is 'Each chunk''s newest answer whose body the archive keeps (what envdata rebuild lands).';

CREATE OR REPLACE FUNCTION analytics.hour_status(dataset text, location integer, from_at timestamp with time zone DEFAULT '-infinity'::timestamp with time zone, to_at timestamp with time zone DEFAULT 'infinity'::timestamp with time zone)
 RETURNS TABLE(location_id integer, location_name text, observed_at timestamp with time zone, observed_at_local timestamp without time zone, status text)
 LANGUAGE sql
 STABLE PARALLEL SAFE
AS $function$
      select l.location_id, l.name, h.observed_at, h.observed_at at time zone l.timezone, s.status
      from analytics.locations l
      -- The hours asked for that the dataset has: from its history start (each dataset
      -- definition's historyStart) to the last complete hour, an hour counted when it starts
      -- in [from_at, to_at).
      cross join lateral (
        select case hour_status.dataset
            when 'pollen' then timestamptz '2016-01-01 00:00:00+00'
            when 'weather' then timestamptz '1990-01-01 00:00:00+00' end as history_start,
          date_trunc('hour', hour_status.from_at + interval '1 hour' - interval '1 microsecond')
            as from_hour,
          least(date_trunc('hour', now()),
            date_trunc('hour', hour_status.to_at + interval '1 hour' - interval '1 microsecond'))
            as to_hour
      ) b
      cross join lateral (
        select case when b.history_start is null
            or greatest(b.history_start, b.from_hour) >= b.to_hour then '{}'::tstzmultirange
          else tstzmultirange(tstzrange(greatest(b.history_start, b.from_hour), b.to_hour)) end
          as hours
      ) asked
      left join analytics.coverage c
        on c.location_id = l.location_id and c.dataset = hour_status.dataset
      -- One status per hour: the ranges of analytics.coverage (holes there already exclude
      -- landed hours) made disjoint in this order.
      cross join lateral (
        select coalesce(c.covered_ranges, '{}') as landed,
          coalesce(c.quarantined_ranges, '{}') as quarantined,
          coalesce(c.missing_upstream_ranges, '{}') - coalesce(c.quarantined_ranges, '{}')
            as missing_upstream,
          coalesce(c.not_covered_ranges, '{}') - coalesce(c.quarantined_ranges, '{}')
            - coalesce(c.missing_upstream_ranges, '{}') as not_covered,
          coalesce(c.no_data_ranges, '{}') - coalesce(c.quarantined_ranges, '{}')
            - coalesce(c.missing_upstream_ranges, '{}') - coalesce(c.not_covered_ranges, '{}')
            as no_data
      ) k
      cross join lateral (values
        ('landed', k.landed),
        ('quarantined', k.quarantined),
        ('missing_upstream', k.missing_upstream),
        ('not_covered', k.not_covered),
        ('no_data', k.no_data),
        ('not_fetched', asked.hours - k.landed - k.quarantined - k.missing_upstream
          - k.not_covered - k.no_data)
      ) as s(status, ranges)
      cross join lateral unnest(s.ranges * asked.hours) as r
      cross join lateral generate_series(lower(r), upper(r) - interval '1 hour', interval '1 hour')
        as h(observed_at)
      where l.location_id = hour_status.location
    $function$;
grant EXECUTE on function analytics.hour_status(dataset text, location integer, from_at timestamp with time zone, to_at timestamp with time zone) to envdata_bi;
comment on function analytics.hour_status(dataset text, location integer, from_at timestamp with time zone, to_at timestamp with time zone) is 'One row per hour of a dataset''s history (pollen or weather; from its first hour up to the last complete hour) at one location, the hours starting in [from_at, to_at) only, with what the ledger knows of it: landed (its rows are in the facts), quarantined (its records were refused; reasons in envdata.quarantine), missing_upstream (the service never sent it, even when asked again), not_covered (the service answered 404), no_data (the latest answer was "Data not available!"), not_fetched (nothing asked yet, or nothing recorded). Generates only the hours asked for.';

CREATE OR REPLACE FUNCTION analytics.pollen_hourly_as_of(at timestamp with time zone)
 RETURNS SETOF analytics.pollen_hourly
 LANGUAGE sql
 STABLE
AS $function$
        select f.* from analytics.pollen_hourly f
        join analytics.pollen_hourly_source s using (location_id, observed_at, pollen_type)
        where s.traced_by_window or s.landed_at <= at
        union all
        select r.location_id, r.location_name, r.observed_at, r.pollen_type, r.count, r.risk_level from analytics.pollen_hourly_revisions r
        where coalesce(r.valid_from, '-infinity') <= at and r.valid_to > at
      $function$;
grant EXECUTE on function analytics.pollen_hourly_as_of(at timestamp with time zone) to envdata_bi;
grant EXECUTE on function analytics.pollen_hourly_as_of(at timestamp with time zone) to public;
comment on function analytics.pollen_hourly_as_of(at timestamp with time zone) is 'analytics.pollen_hourly as it stood at the instant given (a landing counts from its transaction''s start): current rows landed by then, and the values revised since as they were. Rows landed before envdata kept revisions (migration 0051) count as always there.';

CREATE OR REPLACE FUNCTION analytics.pollen_species_hourly_as_of(at timestamp with time zone)
 RETURNS SETOF analytics.pollen_species_hourly
 LANGUAGE sql
 STABLE
AS $function$
        select f.* from analytics.pollen_species_hourly f
        join analytics.pollen_species_hourly_source s using (location_id, observed_at, category, species)
        where s.traced_by_window or s.landed_at <= at
        union all
        select r.location_id, r.location_name, r.observed_at, r.category, r.species, r.count, r.risk_level from analytics.pollen_species_hourly_revisions r
        where coalesce(r.valid_from, '-infinity') <= at and r.valid_to > at
      $function$;
grant EXECUTE on function analytics.pollen_species_hourly_as_of(at timestamp with time zone) to envdata_bi;
grant EXECUTE on function analytics.pollen_species_hourly_as_of(at timestamp with time zone) to public;
comment on function analytics.pollen_species_hourly_as_of(at timestamp with time zone) is 'analytics.pollen_species_hourly as it stood at the instant given (a landing counts from its transaction''s start): current rows landed by then, and the values revised since as they were. Rows landed before envdata kept revisions (migration 0051) count as always there.';

CREATE OR REPLACE FUNCTION analytics.weather_hourly_as_of(at timestamp with time zone)
 RETURNS SETOF analytics.weather_hourly
 LANGUAGE sql
 STABLE
AS $function$
        select f.* from analytics.weather_hourly f
        join analytics.weather_hourly_source s using (location_id, observed_at)
        where s.traced_by_window or s.landed_at <= at
        union all
        select r.location_id, r.location_name, r.observed_at, r.temperature_c, r.apparent_temperature_c, r.dew_point_c, r.humidity_pct, r.pressure_hpa, r.wind_speed_ms, r.wind_gust_ms, r.wind_bearing_deg, r.cloud_cover_pct, r.visibility_km, r.uv_index, r.ozone_du, r.precip_intensity_mm_h, r.precip_probability_pct, r.precip_type, r.summary, r.icon from analytics.weather_hourly_revisions r
        where coalesce(r.valid_from, '-infinity') <= at and r.valid_to > at
      $function$;
grant EXECUTE on function analytics.weather_hourly_as_of(at timestamp with time zone) to envdata_bi;
grant EXECUTE on function analytics.weather_hourly_as_of(at timestamp with time zone) to public;
comment on function analytics.weather_hourly_as_of(at timestamp with time zone) is 'analytics.weather_hourly as it stood at the instant given (a landing counts from its transaction''s start): current rows landed by then, and the values revised since as they were. Rows landed before envdata kept revisions (migration 0051) count as always there.';

CREATE OR REPLACE FUNCTION envdata.advance_current_snapshot(location integer, of_dataset envdata.dataset, of_product envdata.snapshot_product, fetched timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
    begin
      insert into envdata.current_fetch as c (location_id, dataset, product, fetched_at)
      values (location, of_dataset, of_product, fetched)
      on conflict (location_id, dataset, product) do update set fetched_at = excluded.fetched_at
        where c.fetched_at < excluded.fetched_at;
      if not found then
        return false;
      end if;
      if of_dataset = 'pollen' then
        delete from envdata.pollen_snapshot_current c
        where c.product = of_product::text and c.location_id = location;
        perform envdata.copy_current_rows('pollen_snapshot', of_dataset, location, of_product);
        delete from envdata.pollen_species_snapshot_current c
        where c.product = of_product::text and c.location_id = location;
        perform envdata.copy_current_rows('pollen_species_snapshot', of_dataset, location, of_product);
      elsif of_dataset = 'weather' then
        delete from envdata.weather_snapshot_current c
        where c.product = of_product::text and c.location_id = location;
        perform envdata.copy_current_rows('weather_snapshot', of_dataset, location, of_product);
      end if;
      return true;
    end
    $function$;
comment on function envdata.advance_current_snapshot(location integer, of_dataset envdata.dataset, of_product envdata.snapshot_product, fetched timestamp with time zone) is 'Makes the snapshot fetched at fetched the current one of its location, dataset and product unless a newer one is, copying its rows into envdata.*_snapshot_current. Call it in the transaction that stores the snapshot, after its rows. True when it became current.';

CREATE OR REPLACE FUNCTION envdata.copy_current_rows(snapshot_table text, of_dataset envdata.dataset, location integer, of_product envdata.snapshot_product)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      columns text;
      source_columns text;
      copied integer;
    begin
      select string_agg(quote_ident(a.attname), ', ' order by a.attnum),
        string_agg('s.' || quote_ident(a.attname), ', ' order by a.attnum)
        into columns, source_columns
      from pg_attribute a
      where a.attrelid = format('envdata.%I', snapshot_table)::regclass
        and a.attnum > 0 and not a.attisdropped;
      execute format($sql$
        insert into envdata.%I (%s, valid_at_local, lead_hours)
        select %s, s.valid_at at time zone l.timezone,
          floor(date_part('epoch', s.valid_at - s.fetched_at) / 3600)::integer
        from envdata.current_fetch c
        join envdata.location l on l.location_id = c.location_id
        -- One lookup per current fetch: pulled up, the planner would hash the whole history.
        cross join lateral (
          select n.* from envdata.%I n
          where n.location_id = c.location_id and n.product = c.product
            and n.fetched_at = c.fetched_at
          offset 0
        ) s
        where c.dataset = $1 and ($2 is null or c.location_id = $2)
          and ($3 is null or c.product = $3)$sql$,
        snapshot_table || '_current', columns, source_columns, snapshot_table)
      using of_dataset, location, of_product;
      get diagnostics copied = row_count;
      return copied;
    end
    $function$;
comment on function envdata.copy_current_rows(snapshot_table text, of_dataset envdata.dataset, location integer, of_product envdata.snapshot_product) is 'Copies the rows of the dataset''s current fetches (envdata.current_fetch) of one location and product, or of all when null, from envdata.<snapshot_table> into its _current copy. Returns the rows copied.';

CREATE OR REPLACE FUNCTION envdata.current_local_times()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      update envdata.pollen_snapshot_current set valid_at_local = valid_at at time zone new.timezone
      where location_id = new.location_id;
      update envdata.pollen_species_snapshot_current set valid_at_local = valid_at at time zone new.timezone
      where location_id = new.location_id;
      update envdata.weather_snapshot_current set valid_at_local = valid_at at time zone new.timezone
      where location_id = new.location_id;
      return null;
    end
    $function$;

CREATE OR REPLACE FUNCTION envdata.ensure_month_partitions(parent regclass, first_month date, last_month date)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      m date;
      created int := 0;
      part text;
      schema_name text;
      table_name text;
    begin
      select n.nspname, c.relname into schema_name, table_name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = parent;
      for m in select generate_series(date_trunc('month', first_month),
          date_trunc('month', last_month), interval '1 month')::date loop
        part := format('%s_m%s', table_name, to_char(m, 'YYYY_MM'));
        -- Looked up before the lock: every store of a snapshot asks, nearly always for a month
        -- that exists.
        continue when to_regclass(format('%I.%I', schema_name, part)) is not null;
        -- One creator at a time across every process; asked again after the lock with a query,
        -- whose fresh snapshot sees a partition another process created meanwhile.
        perform pg_advisory_xact_lock(hashtext('envdata.partitions'));
        if not exists (select 1 from pg_class where relname = part
            and relnamespace = schema_name::regnamespace) then
          execute format('create table %I.%I (like %s including defaults including constraints)',
            schema_name, part, parent);
          execute format(
            'alter table %s attach partition %I.%I for values from (%L) to (%L)',
            parent, schema_name, part,
            make_timestamptz(extract(year from m)::int, extract(month from m)::int, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(extract(year from m + interval '1 month')::int,
              extract(month from m + interval '1 month')::int, 1, 0, 0, 0, 'UTC'));
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $function$;

CREATE OR REPLACE FUNCTION envdata.ensure_year_partitions(parent regclass, first_year integer, last_year integer)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      y int;
      created int := 0;
      part text;
      schema_name text;
      table_name text;
    begin
      select n.nspname, c.relname into schema_name, table_name
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.oid = parent;
      -- One creator at a time across every process; the others find the partition there.
      perform pg_advisory_xact_lock(hashtext('envdata.partitions'));
      for y in first_year .. last_year loop
        part := format('%s_y%s', table_name, y);
        if to_regclass(format('%I.%I', schema_name, part)) is null then
          execute format('create table %I.%I (like %s including defaults including constraints)',
            schema_name, part, parent);
          execute format('create index on %I.%I using brin (observed_at)', schema_name, part);
          execute format(
            'alter table %s attach partition %I.%I for values from (%L) to (%L)',
            parent, schema_name, part,
            make_timestamptz(y, 1, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(y + 1, 1, 1, 0, 0, 0, 'UTC'));
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $function$;

CREATE OR REPLACE FUNCTION envdata.export_mark_days()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into envdata.export_mark (dataset, year, month)
      select tg_argv[0], extract(year from m)::smallint, extract(month from m)::smallint
        from (select distinct date_trunc('month', local_date) as m from changed) c
      on conflict do nothing;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION envdata.export_mark_hours()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into envdata.export_mark (dataset, year, month)
      select tg_argv[0], extract(year from m)::smallint, extract(month from m)::smallint
        from (select distinct date_trunc('month', observed_at at time zone 'UTC') as m from changed) c
      on conflict do nothing;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION envdata.export_mark_locations()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    begin
      insert into envdata.export_mark (dataset, year, month) values ('locations', 0, 0)
      on conflict do nothing;
      return null;
    end $function$;

CREATE OR REPLACE FUNCTION envdata.location_key_is_free()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
    declare
      k text;
      holder integer;
    begin
      -- One lock for all keys: the lock table gets one entry per transaction, not one per row.
      perform pg_advisory_xact_lock(hashtextextended('envdata.location_key', 0));
      -- Each branch reads only its own table's column: a statement is planned when first run.
      if tg_table_name = 'location' then
        k := new.name_key;
        select location_id into holder from envdata.location_alias where alias_key = k;
      else
        k := new.alias_key;
        select location_id into holder from envdata.location where name_key = k;
      end if;
      if holder is not null then
        raise unique_violation using
          message = format('location name or alias key %L is taken by location %s', k, holder),
          detail = format('Key %L is taken by location %s.', k, holder);
      end if;
      return new;
    end $function$;

CREATE OR REPLACE FUNCTION envdata.pollen_hourly_keep_revision()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        insert into envdata.pollen_hourly_revision (location_id, observed_at,
          pollen_type, count, risk_level, answer_id, valid_from, valid_to, replaced_by_answer)
        values (old.location_id, old.observed_at, old.pollen_type, old.count, old.risk_level,
          old.answer_id,
          (select a.landed_at from envdata.answer a where a.answer_id = old.answer_id),
          now(), new.answer_id);
        return null;
      end
      $function$;

CREATE OR REPLACE FUNCTION envdata.pollen_species_hourly_keep_revision()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        insert into envdata.pollen_species_hourly_revision (location_id, observed_at,
          species_id, count, risk_level, answer_id, valid_from, valid_to, replaced_by_answer)
        values (old.location_id, old.observed_at, old.species_id, old.count, old.risk_level,
          old.answer_id,
          (select a.landed_at from envdata.answer a where a.answer_id = old.answer_id),
          now(), new.answer_id);
        return null;
      end
      $function$;

CREATE OR REPLACE FUNCTION envdata.rebuild_current_snapshots()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      copied integer := 0;
    begin
      delete from envdata.current_fetch;
      insert into envdata.current_fetch (location_id, dataset, product, fetched_at)
      select l.location_id, d.dataset::envdata.dataset, p.product, d.fetched_at
      from envdata.location l
      cross join unnest(enum_range(null::envdata.snapshot_product)) as p(product)
      cross join lateral (
        select 'pollen' as dataset, greatest(
          (select n.fetched_at from envdata.pollen_snapshot n
           where n.location_id = l.location_id and n.product = p.product
           order by n.fetched_at desc limit 1),
          (select n.fetched_at from envdata.pollen_species_snapshot n
           where n.location_id = l.location_id and n.product = p.product
           order by n.fetched_at desc limit 1)) as fetched_at
        union all
        select 'weather', greatest(
          (select n.fetched_at from envdata.weather_snapshot n
           where n.location_id = l.location_id and n.product = p.product
           order by n.fetched_at desc limit 1))
      ) d
      where d.fetched_at is not null;
      
      delete from envdata.pollen_snapshot_current;
      copied := copied + envdata.copy_current_rows('pollen_snapshot', 'pollen', null, null);
      delete from envdata.pollen_species_snapshot_current;
      copied := copied + envdata.copy_current_rows('pollen_species_snapshot', 'pollen', null, null);
      delete from envdata.weather_snapshot_current;
      copied := copied + envdata.copy_current_rows('weather_snapshot', 'weather', null, null);
      return copied;
    end
    $function$;
comment on function envdata.rebuild_current_snapshots() is 'Refills envdata.current_fetch and the envdata.*_snapshot_current copies from the snapshot tables. Returns the rows copied.';

CREATE OR REPLACE FUNCTION envdata.refresh_daily_rollups()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      refreshed integer;
      n integer;
      settled timestamptz;
    begin
      refreshed := envdata.refresh_fact_rollups();

      -- A span starts at the first local day that starts at or after settled_before.
      select settled_before into settled from envdata.snapshot_retention;
      if settled is not null then
        update pg_temp.rollup_spans s set span_from = greatest(s.span_from, d.open_from)
        from (
          select timezone, case when start_of_day >= settled then start_of_day
              else start_of_day + interval '1 day' end as open_from
          from (
            select distinct timezone,
              ((settled at time zone timezone)::date)::timestamp at time zone timezone
                as start_of_day
            from pg_temp.rollup_spans
          ) t
        ) d
        where d.timezone = s.timezone;
      end if;


      create temporary table if not exists pg_temp.accuracy_rows
        (like envdata.forecast_accuracy_rollup) on commit drop;
      truncate pg_temp.accuracy_rows;

      insert into pg_temp.accuracy_rows
      select f.location_id, (f.valid_at at time zone s.timezone)::date, 'pollen'::envdata.dataset, f.product,
        f.pollen_type::text, ceil(extract(epoch from f.valid_at - f.fetched_at) / 86400)::int,
        count(*), count(f.count - o.count),
        sum((f.count - o.count)::double precision order by f.count - o.count),
        sum(abs(f.count - o.count)::double precision order by abs(f.count - o.count)),
        sum(((f.count - o.count)::double precision) ^ 2 order by abs(f.count - o.count)),
        count(f.risk_level::text = o.risk_level::text),
        count(*) filter (where f.risk_level::text = o.risk_level::text)
      from pg_temp.rollup_spans s
      join envdata.pollen_snapshot f
        on f.location_id = s.location_id and f.valid_at >= s.span_from and f.valid_at < s.span_to
      join envdata.pollen_hourly o
        on o.location_id = f.location_id and o.observed_at = f.valid_at
        and o.pollen_type = f.pollen_type
        and o.observed_at >= s.span_from and o.observed_at < s.span_to
      where s.dataset = 'pollen' and f.product <> 'latest'
      group by 1, 2, 3, 4, 5, 6;

      insert into pg_temp.accuracy_rows
      select f.location_id, (f.valid_at at time zone s.timezone)::date, 'weather'::envdata.dataset, f.product,
        m.measure, ceil(extract(epoch from f.valid_at - f.fetched_at) / 86400)::int,
        count(*), count(m.forecast_value - m.observed_value),
        sum(m.forecast_value - m.observed_value order by m.forecast_value - m.observed_value),
        sum(abs(m.forecast_value - m.observed_value)
          order by abs(m.forecast_value - m.observed_value)),
        sum((m.forecast_value - m.observed_value) ^ 2
          order by abs(m.forecast_value - m.observed_value)),
        0, 0
      from pg_temp.rollup_spans s
      join envdata.weather_snapshot f
        on f.location_id = s.location_id and f.valid_at >= s.span_from and f.valid_at < s.span_to
      join envdata.weather_hourly o
        on o.location_id = f.location_id and o.observed_at = f.valid_at
        and o.observed_at >= s.span_from and o.observed_at < s.span_to
      cross join lateral (values
        ('temperature_c', round(f.temperature_c::double precision * 100) / 100, round(o.temperature_c::double precision * 100) / 100),
        ('apparent_temperature_c', round(f.apparent_temperature_c::double precision * 100) / 100, round(o.apparent_temperature_c::double precision * 100) / 100),
        ('humidity_pct', round(f.humidity_fraction::double precision * 10000) / 100, round(o.humidity_fraction::double precision * 10000) / 100),
        ('pressure_hpa', round(f.pressure_hpa::double precision * 100) / 100, round(o.pressure_hpa::double precision * 100) / 100),
        ('wind_speed_ms', round(f.wind_speed_ms::double precision * 100) / 100, round(o.wind_speed_ms::double precision * 100) / 100),
        ('cloud_cover_pct', round(f.cloud_cover_fraction::double precision * 10000) / 100, round(o.cloud_cover_fraction::double precision * 10000) / 100),
        ('precip_intensity_mm_h', round(f.precip_intensity_mm_h::double precision * 100) / 100, round(o.precip_intensity_mm_h::double precision * 100) / 100),
        ('precip_probability_pct', round(f.precip_probability_fraction::double precision * 10000) / 100, round(o.precip_probability_fraction::double precision * 10000) / 100)
      ) as m(measure, forecast_value, observed_value)
      where s.dataset = 'weather' and f.product <> 'latest'
      group by 1, 2, 3, 4, 5, 6;

      insert into envdata.forecast_accuracy_rollup as r
      select * from pg_temp.accuracy_rows
      on conflict (location_id, local_date, product, measure, lead_day) do update set
        dataset = excluded.dataset, pairs = excluded.pairs, compared = excluded.compared,
        error_sum = excluded.error_sum, abs_error_sum = excluded.abs_error_sum,
        squared_error_sum = excluded.squared_error_sum,
        risk_compared = excluded.risk_compared, risk_hits = excluded.risk_hits;
      get diagnostics n = row_count;
      refreshed := refreshed + n;

      -- Days of the spans that no longer have a pair of some kind lose its row.
      delete from envdata.forecast_accuracy_rollup r
      using pg_temp.rollup_spans s
      where r.location_id = s.location_id and r.dataset = s.dataset
        and r.local_date >= (s.span_from at time zone s.timezone)::date
        and r.local_date < (s.span_to at time zone s.timezone)::date
        and not exists (
          select 1 from pg_temp.accuracy_rows a
          where a.location_id = r.location_id and a.local_date = r.local_date
            and a.product = r.product and a.measure = r.measure and a.lead_day = r.lead_day);
      return refreshed;
    end
    $function$;

CREATE OR REPLACE FUNCTION envdata.refresh_fact_rollups()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
    declare
      refreshed integer := 0;
      n integer;
    begin
      create temporary table if not exists pg_temp.rollup_spans (
        location_id integer, dataset envdata.dataset, timezone text, span_from timestamptz,
        span_to timestamptz) on commit drop;
      truncate pg_temp.rollup_spans;

      with dirty as (
        delete from envdata.rollup_dirty returning location_id, dataset, from_at, to_at
      ), merged as (
        select location_id, dataset, min(from_at) as from_at, max(to_at) as to_at
        from dirty group by location_id, dataset
      )
      insert into pg_temp.rollup_spans
      select m.location_id, m.dataset, l.timezone,
        ((m.from_at at time zone l.timezone)::date)::timestamp at time zone l.timezone,
        (((m.to_at - interval '1 microsecond') at time zone l.timezone)::date + 1)::timestamp
          at time zone l.timezone
      from merged m join envdata.location l using (location_id);

      insert into envdata.pollen_daily_rollup as r
        (location_id, local_date, pollen_type, hours, count_min, count_max, count_mean, max_risk_level)
      select p.location_id, (p.observed_at at time zone s.timezone)::date, p.pollen_type, count(*),
        min(p.count), max(p.count), avg(p.count), max(p.risk_level)
      from pg_temp.rollup_spans s
      join envdata.pollen_hourly p
        on p.location_id = s.location_id and p.observed_at >= s.span_from and p.observed_at < s.span_to
      where s.dataset = 'pollen'
      group by p.location_id, 2, p.pollen_type
      on conflict (location_id, local_date, pollen_type) do update set
        hours = excluded.hours, count_min = excluded.count_min, count_max = excluded.count_max,
        count_mean = excluded.count_mean, max_risk_level = excluded.max_risk_level;
      get diagnostics n = row_count;
      refreshed := refreshed + n;

      -- Float addition is not associative, and a scan returns a day's rows in the order they
      -- were stored, which differs between a clean and a resumed backfill: unordered, avg() and
      -- sum() over reals differed in the last digits. So each adds its inputs in ascending
      -- order of the value itself, which makes the result a function of the day's values alone
      -- (equal values are interchangeable). It is the cheap deterministic way: one in-memory
      -- sort of single values per day and measure (full refresh of 10 years x 4 locations:
      -- aggregation +0.3 s, about +40 %), where ordering by observed_at sorts whole rows for
      -- each aggregate (about 2.3x) and averaging numeric casts turns every value into text
      -- and back (about 3.5x; real::numeric also keeps only 6 digits). min, max and count do
      -- not depend on order; pollen's avg(count) is over integers, exact in numeric.
      insert into envdata.weather_daily_rollup as r
        (location_id, local_date, hours, temperature_c_min, temperature_c_max, temperature_c_mean, apparent_temperature_c_min, apparent_temperature_c_max, apparent_temperature_c_mean, dew_point_c_min, dew_point_c_max, dew_point_c_mean, humidity_pct_min, humidity_pct_max, humidity_pct_mean, pressure_hpa_min, pressure_hpa_max, pressure_hpa_mean, wind_speed_ms_min, wind_speed_ms_max, wind_speed_ms_mean, wind_gust_ms_min, wind_gust_ms_max, wind_gust_ms_mean, cloud_cover_pct_min, cloud_cover_pct_max, cloud_cover_pct_mean, visibility_km_min, visibility_km_max, visibility_km_mean, uv_index_min, uv_index_max, uv_index_mean, ozone_du_min, ozone_du_max, ozone_du_mean, precip_intensity_mm_h_min, precip_intensity_mm_h_max, precip_intensity_mm_h_mean, precip_probability_pct_min, precip_probability_pct_max, precip_probability_pct_mean, precip_total_mm)
      select w.location_id, (w.observed_at at time zone s.timezone)::date, count(*),
          min(temperature_c), max(temperature_c), avg(temperature_c order by temperature_c),
          min(apparent_temperature_c), max(apparent_temperature_c), avg(apparent_temperature_c order by apparent_temperature_c),
          min(dew_point_c), max(dew_point_c), avg(dew_point_c order by dew_point_c),
          min(humidity_fraction * 100), max(humidity_fraction * 100), avg(humidity_fraction * 100 order by humidity_fraction * 100),
          min(pressure_hpa), max(pressure_hpa), avg(pressure_hpa order by pressure_hpa),
          min(wind_speed_ms), max(wind_speed_ms), avg(wind_speed_ms order by wind_speed_ms),
          min(wind_gust_ms), max(wind_gust_ms), avg(wind_gust_ms order by wind_gust_ms),
          min(cloud_cover_fraction * 100), max(cloud_cover_fraction * 100), avg(cloud_cover_fraction * 100 order by cloud_cover_fraction * 100),
          min(visibility_km), max(visibility_km), avg(visibility_km order by visibility_km),
          min(uv_index), max(uv_index), avg(uv_index order by uv_index),
          min(ozone_du), max(ozone_du), avg(ozone_du order by ozone_du),
          min(precip_intensity_mm_h), max(precip_intensity_mm_h), avg(precip_intensity_mm_h order by precip_intensity_mm_h),
          min(precip_probability_fraction * 100), max(precip_probability_fraction * 100), avg(precip_probability_fraction * 100 order by precip_probability_fraction * 100),
          sum(w.precip_intensity_mm_h order by w.precip_intensity_mm_h)
      from pg_temp.rollup_spans s
      join envdata.weather_hourly w
        on w.location_id = s.location_id and w.observed_at >= s.span_from and w.observed_at < s.span_to
      where s.dataset = 'weather'
      group by w.location_id, 2
      on conflict (location_id, local_date) do update set
        hours = excluded.hours, temperature_c_min = excluded.temperature_c_min, temperature_c_max = excluded.temperature_c_max, temperature_c_mean = excluded.temperature_c_mean, apparent_temperature_c_min = excluded.apparent_temperature_c_min, apparent_temperature_c_max = excluded.apparent_temperature_c_max, apparent_temperature_c_mean = excluded.apparent_temperature_c_mean, dew_point_c_min = excluded.dew_point_c_min, dew_point_c_max = excluded.dew_point_c_max, dew_point_c_mean = excluded.dew_point_c_mean, humidity_pct_min = excluded.humidity_pct_min, humidity_pct_max = excluded.humidity_pct_max, humidity_pct_mean = excluded.humidity_pct_mean, pressure_hpa_min = excluded.pressure_hpa_min, pressure_hpa_max = excluded.pressure_hpa_max, pressure_hpa_mean = excluded.pressure_hpa_mean, wind_speed_ms_min = excluded.wind_speed_ms_min, wind_speed_ms_max = excluded.wind_speed_ms_max, wind_speed_ms_mean = excluded.wind_speed_ms_mean, wind_gust_ms_min = excluded.wind_gust_ms_min, wind_gust_ms_max = excluded.wind_gust_ms_max, wind_gust_ms_mean = excluded.wind_gust_ms_mean, cloud_cover_pct_min = excluded.cloud_cover_pct_min, cloud_cover_pct_max = excluded.cloud_cover_pct_max, cloud_cover_pct_mean = excluded.cloud_cover_pct_mean, visibility_km_min = excluded.visibility_km_min, visibility_km_max = excluded.visibility_km_max, visibility_km_mean = excluded.visibility_km_mean, uv_index_min = excluded.uv_index_min, uv_index_max = excluded.uv_index_max, uv_index_mean = excluded.uv_index_mean, ozone_du_min = excluded.ozone_du_min, ozone_du_max = excluded.ozone_du_max, ozone_du_mean = excluded.ozone_du_mean, precip_intensity_mm_h_min = excluded.precip_intensity_mm_h_min, precip_intensity_mm_h_max = excluded.precip_intensity_mm_h_max, precip_intensity_mm_h_mean = excluded.precip_intensity_mm_h_mean, precip_probability_pct_min = excluded.precip_probability_pct_min, precip_probability_pct_max = excluded.precip_probability_pct_max, precip_probability_pct_mean = excluded.precip_probability_pct_mean, precip_total_mm = excluded.precip_total_mm;
      get diagnostics n = row_count;
      refreshed := refreshed + n;
      return refreshed;
    end
    $function$;

CREATE OR REPLACE FUNCTION envdata.weather_hourly_keep_revision()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      begin
        insert into envdata.weather_hourly_revision (location_id, observed_at,
          temperature_c, apparent_temperature_c, dew_point_c, humidity_fraction, pressure_hpa, wind_speed_ms, wind_gust_ms, wind_bearing_deg, cloud_cover_fraction, visibility_km, uv_index, ozone_du, precip_intensity_mm_h, precip_probability_fraction, precip_type, summary, icon, icon_raw, answer_id, valid_from, valid_to, replaced_by_answer)
        values (old.location_id, old.observed_at, old.temperature_c, old.apparent_temperature_c, old.dew_point_c, old.humidity_fraction, old.pressure_hpa, old.wind_speed_ms, old.wind_gust_ms, old.wind_bearing_deg, old.cloud_cover_fraction, old.visibility_km, old.uv_index, old.ozone_du, old.precip_intensity_mm_h, old.precip_probability_fraction, old.precip_type, old.summary, old.icon, old.icon_raw,
          old.answer_id,
          (select a.landed_at from envdata.answer a where a.answer_id = old.answer_id),
          now(), new.answer_id);
        return null;
      end
      $function$;
