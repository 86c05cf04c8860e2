import type { Location } from '../../src/locations/location.js';
import type { PollenRegion } from '../../src/types.js';
import type { WarehouseSpans } from './warehouse-fill.js';

/**
 * What a query is judged against: `daily` reads the daily views or the ledger's summary (one
 * answer per location and day at most); `hourly` reads the hourly views for at most about one
 * location-year of hours (or as many rows spread over locations); `current` reads every
 * location's newest forecast.
 */
export type QueryClass = 'daily' | 'hourly' | 'current';

/**
 * Targets of issue 15: a daily-level query under 100 ms, an hourly location-year under 300 ms;
 * of issue 27: every location's current forecast under 100 ms.
 */
export const TARGET_MS: Readonly<Record<QueryClass, number>> = {
  daily: 100,
  hourly: 300,
  current: 100,
};

export const CLASS_LABEL: Readonly<Record<QueryClass, string>> = {
  daily: 'daily-level',
  hourly: 'hourly one-location-year',
  current: 'current forecast, every location',
};

/** One query of docs/warehouse-queries.md ("Example queries"), its places and dates set to the bench's data. */
export interface ExampleQuery {
  /** `1`…`8` as numbered in the doc, `grafana`, `H-…` (hourly) or `F-…` (forecast) added by the bench. */
  readonly id: string;
  readonly title: string;
  readonly queryClass: QueryClass;
  /** What it reads: the facts (or their rollups), only the ledger, or only the forecasts. */
  readonly reads: 'facts' | 'ledger' | 'forecasts';
  readonly text: string;
  /**
   * A baseline, timed but not judged: the id of the query it is the "before" of, run as the
   * database owner (it reads `envdata`), not as `envdata_bi`.
   */
  readonly baselineOf?: string;
}

/** The locations the doc's queries name, or stand-ins from the same region when absent. */
export interface QueryPlaces {
  /** A European city with species data and daylight saving (the doc: Berlin). */
  readonly europe: string;
  /** Its `location_id`. */
  readonly europeId: number;
  /** A second one, for the species query (the doc: Chicago, of another region). */
  readonly europe2: string;
  /** A southern-hemisphere city with daylight saving (the doc: Melbourne). */
  readonly south: string;
  /** Two cities for rain totals (the doc: Berlin, Chicago). */
  readonly rain: readonly [string, string];
  /** The zone of `europe`, for the species query's local month. */
  readonly europeZone: string;
}

/** Picks the doc's cities when registered, else the first location of the right region. */
export function queryPlaces(locations: readonly Location[]): QueryPlaces {
  const byName = new Map(locations.map((l) => [l.name.toLowerCase(), l]));
  const pick = (preferred: readonly string[], regions: readonly PollenRegion[], skip: string[]) => {
    for (const name of preferred) {
      const hit = byName.get(name.toLowerCase());
      if (hit && !skip.includes(hit.name)) return hit;
    }
    return (
      locations.find((l) => regions.includes(l.pollenRegion) && !skip.includes(l.name)) ??
      locations.find((l) => !skip.includes(l.name)) ??
      locations[0]!
    );
  };
  const europe = pick(['Berlin'], ['europe'], []);
  const europe2 = pick(['Vienna'], ['europe'], [europe.name]);
  const south = pick(
    ['Melbourne', 'Sydney'],
    ['australia_nz_rest', 'australia_qld_nt'],
    [europe.name],
  );
  const rain1 = pick(['London'], ['europe'], []);
  const rain2 = pick(['Madrid'], ['europe'], [rain1.name]);
  return {
    europe: europe.name,
    europeId: europe.locationId,
    europe2: europe2.name,
    south: south.name,
    rain: [rain1.name, rain2.name],
    europeZone: europe.timezone,
  };
}

const lit = (text: string) => `'${text.replaceAll("'", "''")}'`;
const day = (d: Date) => d.toISOString().slice(0, 10);
const instant = (d: Date) => d.toISOString().replace('T', ' ').replace('.000Z', '+00');

/**
 * The eight example queries of docs/warehouse-queries.md, the Grafana hourly series, and one hourly
 * one-location query per hourly view (a year of weather, of pollen; every forecast pair of the
 * month of forecasts), every location's current 120 h pollen forecast, and a year of one
 * location's hour status (the function docs/warehouse.md recommends for a span, and the view
 * filtered on it), with the places above. The text is the doc's but for the literals: the
 * doc's ranges end today (`current_date - 30`), the bench's history with last year, so each
 * range is pinned to a month or quarter of as many days inside the generated spans.
 */
export function exampleQueries(spans: WarehouseSpans, places: QueryPlaces): ExampleQuery[] {
  const year = spans.pollen.to.getUTCFullYear() - 1;
  const forecastMonthFrom = new Date(
    Date.UTC(spans.forecast.from.getUTCFullYear(), spans.forecast.from.getUTCMonth(), 1),
  );
  const forecastFrom =
    forecastMonthFrom < spans.forecast.from ? spans.forecast.from : forecastMonthFrom;
  const grafanaTo = spans.pollen.to;
  const grafanaFrom = new Date(grafanaTo.getTime() - 48 * 3_600_000);
  const { europe, europeId, europe2, south, rain, europeZone } = places;
  return [
    {
      id: '1',
      title: 'days at High/Very High tree risk in a month, per location',
      queryClass: 'daily',
      reads: 'facts',
      text: `select location_name,
  count(*) filter (where max_risk_level = 'Very High') as very_high_days,
  count(*) filter (where max_risk_level = 'High') as high_days,
  max(count_max) as peak_count
from analytics.pollen_daily
where pollen_type = 'tree'
  and local_date >= date '${year}-04-01' and local_date < date '${year}-05-01'
group by location_name
order by very_high_days desc, high_days desc
limit 5`,
    },
    {
      id: '2',
      title: "one location's daily maximum tree risk for a week",
      queryClass: 'daily',
      reads: 'facts',
      text: `select local_date, count_max, max_risk_level,
  array_position(array['Low', 'Moderate', 'High', 'Very High'], max_risk_level) as severity
from analytics.pollen_daily
where location_name = ${lit(europe)} and pollen_type = 'tree'
  and local_date >= date '${year}-04-10' and local_date < date '${year}-04-17'
order by local_date`,
    },
    {
      id: '3',
      title: 'correlation of daily grass pollen with temperature and rain, a quarter',
      queryClass: 'daily',
      reads: 'facts',
      text: `select w.location_name,
  round(corr(w.temperature_c_mean, p.count_mean)::numeric, 2) as r_temperature,
  round(corr(w.precip_total_mm, p.count_mean)::numeric, 2) as r_rain,
  count(*) as days
from analytics.weather_daily w
join analytics.pollen_daily p using (location_id, local_date)
where p.pollen_type = 'grass'
  and w.local_date >= date '${year}-05-01' and w.local_date < date '${year}-08-01'
  and p.local_date >= date '${year}-05-01' and p.local_date < date '${year}-08-01'
  and w.hours >= 23 and p.hours >= 23
group by w.location_name
order by r_rain
limit 5`,
    },
    {
      id: '4',
      title: 'forecast accuracy by lead day, a month of forecasts',
      queryClass: 'daily',
      reads: 'facts',
      text: `select product, measure, lead_day, sum(pairs) as pairs,
  round((sum(abs_error_sum) / sum(compared))::numeric, 2) as mae,
  round(sum(risk_hits)::numeric / nullif(sum(risk_compared), 0), 2) as risk_hit_rate
from analytics.forecast_accuracy_daily
where measure in ('tree', 'temperature_c')
  and local_date >= date '${day(forecastFrom)}' and local_date < date '${day(spans.forecast.to)}'
group by product, measure, lead_day
order by measure, product, lead_day`,
    },
    {
      id: '5',
      title: 'coverage gaps: every hole in what has been ingested',
      queryClass: 'daily',
      reads: 'ledger',
      text: `select location_name, dataset, first_hour, last_ingested_hour, gap
from analytics.coverage, unnest(gaps) as gap
order by location_name, dataset, gap`,
    },
    {
      id: '6',
      title: 'local days not 24 hours long, and which are complete',
      queryClass: 'daily',
      reads: 'facts',
      text: `select d.location_name, d.local_date, d.hours,
  extract(epoch from ((d.local_date + 1)::timestamp at time zone l.timezone)
    - (d.local_date::timestamp at time zone l.timezone))::int / 3600 as day_length,
  d.hours = extract(epoch from ((d.local_date + 1)::timestamp at time zone l.timezone)
    - (d.local_date::timestamp at time zone l.timezone))::int / 3600 as complete
from analytics.weather_daily d
join analytics.locations l using (location_id)
where d.location_name in (${lit(europe)}, ${lit(south)}) and d.hours <> 24
order by d.location_name, d.local_date`,
    },
    {
      id: '7',
      title: 'species behind the tree count for a month, two locations',
      queryClass: 'hourly',
      reads: 'facts',
      text: `select location_name, species, max(count) as peak_count,
  case when count(risk_level) > 0 then
    count(distinct (observed_at at time zone l.timezone)::date)
      filter (where risk_level in ('High', 'Very High'))
  end as high_risk_days
from analytics.pollen_species_hourly s
join analytics.locations l using (location_id)
where s.category = 'tree'
  and s.observed_at >= timestamptz '${year}-04-01 00:00 ${europeZone}'
  and s.observed_at < timestamptz '${year}-05-01 00:00 ${europeZone}'
  and l.name in (${lit(europe)}, ${lit(europe2)})
group by location_name, species
order by location_name, peak_count desc`,
    },
    {
      id: '8',
      title: 'monthly rain totals and wet days, two locations, a quarter',
      queryClass: 'daily',
      reads: 'facts',
      text: `select location_name, date_trunc('month', local_date)::date as month,
  round(sum(precip_total_mm)::numeric, 1) as rain_mm,
  count(*) filter (where precip_total_mm >= 1) as wet_days
from analytics.weather_daily
where location_name in (${lit(rain[0])}, ${lit(rain[1])})
  and local_date >= date '${year}-01-01' and local_date < date '${year}-04-01'
group by location_name, month
order by location_name, month`,
    },
    {
      id: 'grafana',
      title: 'Grafana hourly tree series, every location, last 48 h ($__timeFilter)',
      queryClass: 'hourly',
      reads: 'facts',
      text: `select observed_at as "time", location_name as metric, count as value
from analytics.pollen_hourly
where observed_at between timestamptz '${instant(grafanaFrom)}' and timestamptz '${instant(grafanaTo)}'
  and pollen_type = 'tree'
order by 1`,
    },
    {
      id: 'H-weather',
      title: 'hourly weather of one location for a year',
      queryClass: 'hourly',
      reads: 'facts',
      text: `select observed_at, temperature_c, humidity_pct, wind_speed_ms, precip_intensity_mm_h, icon
from analytics.weather_hourly
where location_name = ${lit(europe)}
  and observed_at >= timestamptz '${year}-01-01 00:00+00' and observed_at < timestamptz '${year + 1}-01-01 00:00+00'
order by observed_at`,
    },
    {
      id: 'H-accuracy',
      title: "every forecast hour of one location beside its observation, a month's forecasts",
      queryClass: 'hourly',
      reads: 'facts',
      text: `select product, measure, ceil(lead_hours / 24)::int as lead_day, count(*) as pairs,
  round(avg(abs(forecast_value - observed_value))::numeric, 2) as mae
from analytics.forecast_accuracy
where location_name = ${lit(europe)}
group by product, measure, lead_day
order by measure, product, lead_day`,
    },
    {
      id: 'H-pollen',
      title: 'hourly pollen of one location for a year',
      queryClass: 'hourly',
      reads: 'facts',
      text: `select observed_at, pollen_type, count, risk_level
from analytics.pollen_hourly
where location_name = ${lit(europe)}
  and observed_at >= timestamptz '${year}-01-01 00:00+00' and observed_at < timestamptz '${year + 1}-01-01 00:00+00'
order by observed_at, pollen_type`,
    },
    {
      id: 'F-forecast',
      title: "every location's current 120 h pollen forecast",
      queryClass: 'current',
      reads: 'forecasts',
      text: `select * from analytics.pollen_forecast where product = 'forecast_120h'`,
    },
    {
      id: 'F-before',
      title: 'the same, as the view read it before 0040: newest fetch of the history',
      queryClass: 'current',
      reads: 'forecasts',
      baselineOf: 'F-forecast',
      text: `select l.location_id, l.name as location_name, 'forecast_120h' as product, s.fetched_at,
  s.valid_at, s.valid_at at time zone l.timezone as valid_at_local,
  floor(extract(epoch from s.valid_at - s.fetched_at) / 3600)::integer as lead_hours,
  s.pollen_type::text as pollen_type, s.count, s.risk_level::text as risk_level
from envdata.location l
cross join lateral (
  select n.* from envdata.pollen_snapshot n
  where n.location_id = l.location_id and n.product = 'forecast_120h'
  order by n.fetched_at desc fetch first 1 rows with ties
) s`,
    },
    {
      id: 'F-risk',
      title: 'five-day pollen risk per city (docs/warehouse.md, pollen_forecast)',
      queryClass: 'daily',
      reads: 'forecasts',
      text: `select location_name, valid_at_local::date as local_date, pollen_type,
  max(count) as peak_count,
  (array['Low', 'Moderate', 'High', 'Very High'])[max(
    array_position(array['Low', 'Moderate', 'High', 'Very High'], risk_level))] as max_risk_level
from analytics.pollen_forecast
where product = 'forecast_120h'
group by location_name, local_date, pollen_type
order by location_name, local_date, pollen_type`,
    },
    {
      id: 'H-status',
      title: "hour status of one location's weather for a year, by status (function)",
      queryClass: 'hourly',
      reads: 'ledger',
      text: `select status, count(*) as hours
from analytics.hour_status('weather', ${europeId},
  timestamptz '${year}-01-01 00:00+00', timestamptz '${year + 1}-01-01 00:00+00')
group by status
order by status`,
    },
    {
      id: 'H-status-view',
      title: "hour status of one location's weather for a year, by status (view)",
      queryClass: 'hourly',
      reads: 'ledger',
      text: `select status, count(*) as hours
from analytics.weather_hour_status
where location_id = ${europeId}
  and observed_at >= timestamptz '${year}-01-01 00:00+00' and observed_at < timestamptz '${year + 1}-01-01 00:00+00'
group by status
order by status`,
    },
  ];
}
