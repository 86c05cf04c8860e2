import type { Dataset } from '../types.js';
import { ANALYTICS_VIEW_KEYS } from './analytics-view-keys.js';
import type { AnalyticsCatalog, AnalyticsView } from './read-analytics-views.js';

/** The name of the dbt source: `{{ source('envdata', 'pollen_hourly') }}`. */
const DBT_SOURCE_NAME = 'envdata';

/** How dbt tells a view's age: the ledger's complete hour of a dataset, or a column. */
type Freshness = { readonly dataset: Dataset } | { readonly field: string };

/**
 * The views dbt checks for freshness. The history views read `analytics.dataset_freshness`'s
 * `complete_through`: the newest hour of the dataset's least fresh location, the one definition
 * of fresh that `envdata status` and the console use too (a hole in the past is a hole in the
 * history, not a lag: that view names it apart). The daily views are refreshed from the same hours
 * after each run. The forecast and latest views are as fresh as the nightly sync that fetched them.
 */
const FRESHNESS: Readonly<Record<string, Freshness>> = {
  pollen_hourly: { dataset: 'pollen' },
  pollen_species_hourly: { dataset: 'pollen' },
  pollen_daily: { dataset: 'pollen' },
  weather_hourly: { dataset: 'weather' },
  weather_daily: { dataset: 'weather' },
  pollen_forecast: { field: 'fetched_at' },
  pollen_species_forecast: { field: 'fetched_at' },
  weather_forecast: { field: 'fetched_at' },
  pollen_latest: { field: 'fetched_at' },
  weather_latest: { field: 'fetched_at' },
};

/**
 * How old data may be: the nightly sync (02:00 UTC by default) leaves the newest complete hour
 * about a day old, so warn after a missed night and fail after two.
 */
const FRESHNESS_AFTER = {
  warn_after: { count: 36, period: 'hour' },
  error_after: { count: 72, period: 'hour' },
} as const;

/** Views whose key gets no dbt test, and why. */
const UNTESTED: Readonly<Record<string, string>> = {
  pollen_hour_status:
    'generated hour by hour from the ledger: a test would generate every location’s whole history',
  weather_hour_status:
    'generated hour by hour from the ledger: a test would generate every location’s whole history',
};

export interface DbtColumn {
  readonly name: string;
  readonly description?: string;
  readonly data_tests?: readonly ('not_null' | 'unique')[];
}

export interface DbtTable {
  readonly name: string;
  readonly description?: string;
  readonly config?: {
    readonly meta?: { readonly key: readonly string[]; readonly tests_left_off?: string };
    readonly freshness?: typeof FRESHNESS_AFTER;
    readonly loaded_at_query?: string;
    readonly loaded_at_field?: string;
  };
  readonly columns: readonly DbtColumn[];
}

/** A dbt `sources.yml` (dbt 1.10 or later: freshness, `loaded_at_query` and meta in `config`). */
export interface DbtSources {
  readonly version: 2;
  readonly sources: readonly [
    {
      readonly name: string;
      readonly description?: string;
      readonly schema: 'analytics';
      readonly tables: readonly DbtTable[];
    },
  ];
}

/** The SQL dbt runs for the age of a dataset's history: one row, one timestamp. */
function freshnessQuery(dataset: Dataset): string {
  return `select complete_through from analytics.dataset_freshness where dataset = '${dataset}'`;
}

/**
 * The dbt source for schema `analytics`: every view and column with its comment (none where the
 * database has none), `not_null` on each key column and `unique` where one column is the key
 * (dbt core tests uniqueness of one column only; the whole key is in `config.meta.key`), and the
 * freshness of the views that have one.
 */
export function dbtSources(catalog: AnalyticsCatalog): DbtSources {
  return {
    version: 2,
    sources: [
      {
        name: DBT_SOURCE_NAME,
        ...described(catalog.comment),
        schema: 'analytics',
        tables: catalog.views.map(dbtTable),
      },
    ],
  };
}

function dbtTable(view: AnalyticsView): DbtTable {
  const key = ANALYTICS_VIEW_KEYS[view.name];
  const untested = UNTESTED[view.name];
  const freshness = FRESHNESS[view.name];
  const config = {
    ...(key && { meta: { key, ...(untested && { tests_left_off: untested }) } }),
    ...(freshness && { freshness: FRESHNESS_AFTER }),
    ...(freshness &&
      ('dataset' in freshness
        ? { loaded_at_query: freshnessQuery(freshness.dataset) }
        : { loaded_at_field: freshness.field })),
  };
  return {
    name: view.name,
    ...described(view.comment),
    ...(Object.keys(config).length > 0 && { config }),
    columns: view.columns.map((column) => {
      const tested = key !== undefined && key.includes(column.name) && !untested;
      return {
        name: column.name,
        ...described(column.comment),
        ...(tested && { data_tests: key.length === 1 ? ['not_null', 'unique'] : ['not_null'] }),
      };
    }),
  };
}

/** `{ description }`, or nothing for a missing or blank comment. */
function described(comment: string | null): { description?: string } {
  return comment?.trim() ? { description: comment } : {};
}
