import { sql, type Kysely } from 'kysely';

/**
 * Locations, the species dimension and the hourly fact tables, range-partitioned by year.
 * Partitions are created ahead of the data by `envdata.ensure_year_partitions`, which the
 * writer calls for any year it has not seen (1990–2030 exist from the start).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create type envdata.risk_level as enum ('Low', 'Moderate', 'High', 'Very High');
    create type envdata.pollen_type as enum ('tree', 'grass', 'weed');
    create type envdata.species_category as enum ('tree', 'grass', 'weed', 'other');
    create type envdata.weather_icon as enum ('cloudy', 'partly-cloudy', 'clear', 'snow', 'rain', 'fog');
    create type envdata.pollen_region as enum (
      'europe', 'north_america', 'australia_qld_nt', 'australia_nz_rest',
      'south_america_oceania', 'rest_of_world');

    create table envdata.location (
      location_id integer generated always as identity primary key,
      name text not null check (length(trim(name)) > 0),
      lat double precision not null check (lat between -90 and 90),
      lng double precision not null check (lng between -180 and 180),
      country_code char(2),
      timezone text not null,
      pollen_region envdata.pollen_region not null,
      place text,
      registered_by text not null check (registered_by in ('coordinates', 'place', 'import')),
      created_at timestamptz not null default now()
    );
    create unique index location_name_key on envdata.location (lower(name));
    create unique index location_point_key on envdata.location (round(lat::numeric, 4), round(lng::numeric, 4));

    create table envdata.pollen_species (
      species_id smallint generated always as identity primary key,
      category envdata.species_category not null,
      name text not null,
      unique (category, name)
    );

    create table envdata.pollen_hourly (
      location_id integer not null references envdata.location on delete cascade,
      observed_at timestamptz not null,
      pollen_type envdata.pollen_type not null,
      count integer check (count >= 0),
      risk_level envdata.risk_level,
      primary key (location_id, observed_at, pollen_type)
    ) partition by range (observed_at);

    create table envdata.pollen_species_hourly (
      location_id integer not null references envdata.location on delete cascade,
      observed_at timestamptz not null,
      species_id smallint not null references envdata.pollen_species,
      count integer not null check (count >= 0),
      risk_level envdata.risk_level,
      primary key (location_id, observed_at, species_id)
    ) partition by range (observed_at);

    create table envdata.weather_hourly (
      location_id integer not null references envdata.location on delete cascade,
      observed_at timestamptz not null,
      temperature_c real,
      apparent_temperature_c real,
      dew_point_c real,
      humidity_fraction real check (humidity_fraction between 0 and 1),
      pressure_hpa real,
      wind_speed_ms real check (wind_speed_ms >= 0),
      wind_gust_ms real check (wind_gust_ms >= 0),
      wind_bearing_deg real check (wind_bearing_deg between 0 and 360),
      cloud_cover_fraction real check (cloud_cover_fraction between 0 and 1),
      visibility_km real check (visibility_km >= 0),
      uv_index real check (uv_index >= 0),
      ozone_du real,
      precip_intensity_mm_h real check (precip_intensity_mm_h >= 0),
      precip_probability_fraction real check (precip_probability_fraction between 0 and 1),
      precip_type text,
      summary text,
      icon envdata.weather_icon,
      icon_raw text,
      primary key (location_id, observed_at)
    ) partition by range (observed_at);

    create function envdata.ensure_year_partitions(parent regclass, first_year int, last_year int)
    returns int language plpgsql as $fn$
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
          execute format(
            'create table %I.%I partition of %s for values from (%L) to (%L)',
            schema_name, part, parent,
            make_timestamptz(y, 1, 1, 0, 0, 0, 'UTC'),
            make_timestamptz(y + 1, 1, 1, 0, 0, 0, 'UTC'));
          execute format('create index on %I.%I using brin (observed_at)', schema_name, part);
          created := created + 1;
        end if;
      end loop;
      return created;
    end
    $fn$;

    select envdata.ensure_year_partitions('envdata.weather_hourly', 1990, 2030);
    select envdata.ensure_year_partitions('envdata.pollen_hourly', 2016, 2030);
    select envdata.ensure_year_partitions('envdata.pollen_species_hourly', 2016, 2030);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    drop table if exists envdata.weather_hourly, envdata.pollen_species_hourly,
      envdata.pollen_hourly, envdata.pollen_species, envdata.location cascade;
    drop function if exists envdata.ensure_year_partitions(regclass, int, int);
    drop type if exists envdata.pollen_region, envdata.weather_icon, envdata.species_category,
      envdata.pollen_type, envdata.risk_level;
  `.execute(db);
}
