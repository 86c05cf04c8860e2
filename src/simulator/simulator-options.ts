import type { Logger } from '../logging/create-logger.js';
import type { FaultSettings } from './faults/fault-settings.js';
import type { WeatherDrift } from './render/drift-variant.js';
import type { ShapeVariants } from './render/shape-variants.js';
import { API_PRODUCTS, type ApiProduct } from './simulator-endpoints.js';

/** The key every simulator accepts unless told otherwise, entitled to every product. */
export const DEMO_API_KEY = 'envdata-demo-key';

/**
 * Whether 429 answers carry `Retry-After`: `always`, `never` (the service's usual habit), or
 * `sometimes` (every other one on average, from a seeded sequence).
 */
export type RetryAfterMode = 'always' | 'sometimes' | 'never';

/**
 * How a `Retry-After` the simulator sends is written, to make hostile answers: `seconds` (the
 * default, what HTTP means), `milliseconds` (a proxy's mistake: the same wait, ×1000), or
 * `{ header }`: that value as it is, whatever the wait (an absurd count such as `999999999`, a
 * far-future HTTP-date).
 */
export type RetryAfterFormat = 'seconds' | 'milliseconds' | { readonly header: string };

/** At most `max` calls per key per `durationMs` (fixed windows); more are answered 429. */
export interface RateLimitOption {
  readonly max: number;
  readonly durationMs: number;
  /** Default `always`. */
  readonly retryAfter?: RetryAfterMode;
  /** Default `seconds`. */
  readonly retryAfterFormat?: RetryAfterFormat;
}

/**
 * Calls each key may make per day and per calendar month, counted apart for every key. A call
 * past either is answered as the service answers a spent quota: `status` 429, body
 * `{"message":"quota exceeded"}`, no `Retry-After`. A call counts when the key, its entitlement
 * and the rate limit let it through, whatever its answer; refused calls do not count.
 *
 * @example { perDay: 5000, perMonth: 100_000, timeZone: 'Europe/Berlin' }
 */
export interface QuotaOption {
  /** Calls per key per day (0 refuses every call); absent: no daily cap. */
  readonly perDay?: number;
  /** Calls per key per calendar month; absent: no monthly cap. */
  readonly perMonth?: number;
  /** IANA zone whose midnight ends the day and whose 1st begins the month. Default `UTC`. */
  readonly timeZone?: string;
  /** Default 429, as the service answers; 422 is the other status recorded for it. */
  readonly status?: 429 | 422;
  /** Whether the answer carries `Retry-After` (seconds to the reset). Default `never`. */
  readonly retryAfter?: RetryAfterMode;
  /** Default `seconds`. */
  readonly retryAfterFormat?: RetryAfterFormat;
}

/**
 * The older form of `quota`: at most `max` calls per key per day, answered `status` (default
 * 429) with `Retry-After` by default. `quota`, when set, is in force instead.
 */
export interface DailyQuotaOption {
  readonly max: number;
  readonly status?: 429 | 422;
  /** Whether the quota answer carries `Retry-After` (seconds to UTC midnight). Default `always`. */
  readonly retryAfter?: RetryAfterMode;
  /** Default `seconds`. */
  readonly retryAfterFormat?: RetryAfterFormat;
}

/**
 * History the service revises after the fact (weather reanalysis, pollen counts checked later):
 * a share of the hours of weather and pollen history answers come back with other values once
 * they have been answered before.
 *
 * Which hours: each (site, hour) is revised with probability `share`, decided by a hash of the
 * site (coordinates to 4 decimals), the hour and `seed` (`isRevisedHour`), the same every time.
 * When: the simulator remembers, per dataset and site, the hours it has sent in a whole 200
 * history answer (always, whether `revise` is set or not; a bounded record, see `ServedHours`).
 * An hour's first answer gives its original values; every later answer of a revised hour, while
 * `revise` is set, gives its revised values (the same every time). So "read a window, read it
 * again" shows about `share` of its hours changed and the rest identical, and a third read equals
 * the second, whether `revise` was set at start or between the reads. Setting `revise` to `null`
 * brings the original values back; `POST /__admin/reset` (or `forgetServedHours()`) forgets what
 * was answered, so every hour's next answer is original again.
 *
 * A revised weather hour is 0.7 °C warmer (temperature and apparent temperature), its humidity
 * 0.02 nearer 0.5, its dew point recomputed from both and its pressure 0.3 hPa higher; a revised
 * pollen hour has every species count raised by 15 % (at least 1) and each type's `Count` by its
 * species' rise. Values keep their usual decimals and stay in the service's valid ranges. Latest
 * and forecast answers are never revised.
 *
 * @example { share: 0.25 } // a quarter of the hours, on their second and later answers
 */
export interface ReviseOption {
  /** The share of hours revised, 0–1: 0 none, 1 every hour answered before. */
  readonly share: number;
  /** Picks which hours (any text, 1–64 characters); another seed revises other hours. Default `''`. */
  readonly seed?: string;
}

/** The options that can change while the simulator runs (`setOptions`, `POST /__admin/options`). */
export interface SimulatorRuntimeOptions {
  /** Accepted keys → the products each may call. Default: `DEMO_API_KEY` for everything. */
  readonly keys: Readonly<Record<string, readonly ApiProduct[]>>;
  /** Longest history range per request; longer answers 400. Default 48. */
  readonly maxRangeHours: number;
  /** Default `null`: no rate limit. */
  readonly rateLimit: RateLimitOption | null;
  /** Default `null`: no quota. */
  readonly quota: QuotaOption | null;
  /** Default `null`. Ignored while `quota` is set. */
  readonly dailyQuota: DailyQuotaOption | null;
  /**
   * Real seconds a quota day lasts, 1–86400 (default 86400): shorter days make the quota clock
   * run faster (`QuotaClock`), so tests see resets without waiting a day. A month lasts its
   * calendar days of `daySeconds` each.
   */
  readonly daySeconds: number;
  /** Older/other response shapes: `true` for all, or single variants. Default `false`. */
  readonly legacyShapes: boolean | Partial<ShapeVariants>;
  /** A change of the weather records' format (`WeatherDrift`); default `null`: none. */
  readonly drift: WeatherDrift | null;
  /**
   * A frozen "now" (epoch ms or ISO-8601) that decides history coverage, latest and forecasts;
   * `null` (default) follows the system clock.
   */
  readonly now: number | string | null;
  /** History revised after its first answer (`ReviseOption`); default `null`: never. */
  readonly revise: ReviseOption | null;
}

/** Everything `startSimulator` accepts. */
export interface SimulatorOptions extends SimulatorRuntimeOptions {
  /** TCP port; 0 (default) takes a free one. */
  readonly port: number;
  /** Interface to listen on. Default `127.0.0.1` (loopback only). */
  readonly host: string;
  /** Faults in force at start: settings or the compact text of `parseFaultSpec`. Default none. */
  readonly faults: FaultSettings | string;
  /** Whether `/__admin/…` answers. Default `true`. */
  readonly admin: boolean;
  /**
   * The token `/__admin/…` requires (`x-admin-token` or `Authorization: Bearer`), at least 16
   * characters. Default none: the admin endpoint is then open, which `startSimulator` allows on
   * a loopback `host` only.
   */
  readonly adminToken: string | undefined;
  /** Where start-up and unexpected errors are logged. Default: nowhere. Keys are never logged. */
  readonly logger: Logger | undefined;
  /**
   * How many recent service requests to keep with their query and client address
   * (`RunningSimulator.requests()`, `GET /__admin/requests`), 0–1,000,000. Default 0: none.
   */
  readonly requestLog: number;
}

/** The defaults of every option. */
export const DEFAULT_SIMULATOR_OPTIONS: SimulatorOptions = Object.freeze({
  keys: Object.freeze({ [DEMO_API_KEY]: API_PRODUCTS }),
  maxRangeHours: 48,
  rateLimit: null,
  quota: null,
  dailyQuota: null,
  daySeconds: 86_400,
  legacyShapes: false,
  drift: null,
  now: null,
  revise: null,
  port: 0,
  host: '127.0.0.1',
  faults: Object.freeze({}),
  admin: true,
  adminToken: undefined,
  logger: undefined,
  requestLog: 0,
});
