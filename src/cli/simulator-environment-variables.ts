import type { EnvironmentVariable } from '../config/environment-variables.js';
import { FAULT_KINDS } from '../simulator/faults/fault-settings.js';
import { SHAPE_VARIANT_NAMES } from '../simulator/render/shape-variants.js';

/**
 * The environment variables of `envdata simulate`, with defaults and descriptions, for
 * `parseSimulatorEnvironment` and `--help`. They belong to the command's boundary, not to
 * `src/config/`: the simulator owns its options (`SimulatorOptions`), which the envdata config
 * knows nothing of. A module apart from their parser: `--help` shows them without loading it.
 */
export const SIMULATOR_ENVIRONMENT_VARIABLES = [
  {
    name: 'ENVDATA_SIM_PORT',
    default: '8787',
    description:
      'Port the simulator listens on; 0 takes a free one (ENVDATA_BASE_URL defaults to :8787).',
  },
  {
    name: 'ENVDATA_SIM_HOST',
    default: '127.0.0.1',
    description: 'Interface the simulator listens on; keep loopback unless others must reach it.',
  },
  {
    name: 'ENVDATA_SIM_KEYS',
    default: 'envdata-demo-key:*',
    description:
      'Accepted API keys and their products: KEY:pollen+weather+geocode or KEY:* (all), comma-separated.',
    secret: true,
  },
  {
    name: 'ENVDATA_SIM_MAX_RANGE_HOURS',
    default: '48',
    description:
      'Longest history range per request, in hours (48, 48h, 2d); longer answers 400 "Only past 2 days data available!".',
  },
  {
    name: 'ENVDATA_SIM_RATE_LIMIT',
    default: 'off',
    description: 'Calls allowed per key: 20/s, 600/min, 10/5s, or off. Excess answers 429.',
  },
  {
    name: 'ENVDATA_SIM_RETRY_AFTER',
    default: 'always',
    description:
      "Whether the rate limit's 429 answers carry Retry-After: always, sometimes or never (the real service rarely does).",
  },
  {
    name: 'ENVDATA_SIM_DAILY_QUOTA',
    default: 'off',
    description:
      'Calls allowed per key per day, then 429 "quota exceeded" without Retry-After: 5000, or 5000/422 to answer 422; off for none.',
  },
  {
    name: 'ENVDATA_SIM_MONTHLY_QUOTA',
    default: 'off',
    description:
      'Calls allowed per key per calendar month, then the same answer: 100000 (or 100000/422); off for none.',
  },
  {
    name: 'ENVDATA_SIM_QUOTA_TIME_ZONE',
    default: 'UTC',
    description:
      'IANA time zone whose midnight ends the quota day and whose 1st begins the month: UTC, Europe/Berlin.',
  },
  {
    name: 'ENVDATA_SIM_QUOTA_RETRY_AFTER',
    default: 'never',
    description:
      'Whether quota answers carry Retry-After (seconds to the reset): never (as the real service), sometimes or always.',
  },
  {
    name: 'ENVDATA_SIM_DAY_SECONDS',
    default: '86400',
    description:
      'Real seconds a quota day lasts, 1-86400; shorter days make the quota clock run faster for tests (a month is its calendar days of these).',
  },
  {
    name: 'ENVDATA_SIM_FAULTS',
    default: '',
    description: `Injected faults, SELECTOR:KIND[=N]@RATE or SELECTOR:KIND[=N]xCOUNT separated by ";": all:error=503@5%; history:hang x2; history:short=6x1. Kinds: ${FAULT_KINDS.join(', ')} (short, empty, conflict, duplicate: 200 answers with hours missing, none, or repeated; nul, nulvalue, long, wrongtype, badrisk, millis, blank: the first N records made hostile; history endpoints only, N = hours; ambiguous: every weather history share 0 or 1, so the answer cannot tell fractions from percentages).`,
  },
  {
    name: 'ENVDATA_SIM_FAULT_SEED',
    default: '1',
    description:
      'Seed of the fault and Retry-After sequences; the same seed and requests give the same faults.',
  },
  {
    name: 'ENVDATA_SIM_LEGACY_SHAPES',
    default: 'off',
    description: `Older response shapes: off, all, or a comma list of ${Object.keys(SHAPE_VARIANT_NAMES).join(', ')}.`,
  },
  {
    name: 'ENVDATA_SIM_NOW',
    default: undefined,
    description:
      'Freeze the simulator clock at an ISO-8601 instant (2024-07-01T12:00:00Z); default the system clock.',
  },
  {
    name: 'ENVDATA_SIM_REVISE',
    default: 'off',
    description:
      'Revise history after the fact: the share of weather and pollen history hours (25% or 0.25) whose second and later answers bring other values, optionally :SEED to pick other hours (25%:v2); off for none.',
  },
  {
    name: 'ENVDATA_SIM_ADMIN',
    default: 'on',
    description: 'Whether the /__admin/ endpoint (stats, faults, options) answers: on or off.',
  },
  {
    name: 'ENVDATA_SIM_ADMIN_TOKEN',
    default: undefined,
    description:
      'Token /__admin/ requires (header x-admin-token or Authorization: Bearer), 16+ characters. Required when ENVDATA_SIM_HOST is not loopback and admin is on; without it, loopback only.',
    secret: true,
  },
] as const satisfies readonly EnvironmentVariable[];
