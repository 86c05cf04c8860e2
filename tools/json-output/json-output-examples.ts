import type { ExportJson, ExportVerifyJson } from '../../src/cli/json/export-json.js';
import type { DeclaredPlanJson } from '../../src/cli/json/declared-plan-json.js';
import type { UpstreamJson } from '../../src/cli/json/upstream-json.js';
import type { NotificationJson } from '../../src/notify/notification-document.js';
import type { BackfillPlanJson } from '../../src/cli/json/backfill-plan-json.js';
import type { LineagePendingJson } from '../../src/cli/json/lineage-pending-json.js';
import type { LocationsJson } from '../../src/cli/json/locations-json.js';
import type { RunJson } from '../../src/cli/json/run-json.js';
import type { RunStatusJson } from '../../src/cli/json/run-status-json.js';
import type { StatusJson } from '../../src/cli/json/status-json.js';
import type { SyncPlanJson } from '../../src/cli/json/sync-plan-json.js';

// The examples of docs/json-output.md. Typed by each document's schema, so that they cannot
// drift from it; test/cli/json-output-docs.test.ts parses them with the schemas too.

const health = {
  postgres: {
    url: 'postgres://envdata:***@127.0.0.1:5432/envdata',
    ok: true,
    problem: null,
    pendingMigrations: [],
  },
  queue: {
    backend: 'redis',
    url: 'redis://127.0.0.1:6379',
    ok: true,
    problem: null,
    queues: {
      ingest: { waiting: 0, active: 2, delayed: 0, failed: 0, prioritized: 14 },
      sync: { waiting: 0, active: 0, delayed: 0, failed: 0, prioritized: 0 },
    },
    workers: [
      {
        host: 'worker-1',
        pid: 4242,
        concurrency: 4,
        ageSeconds: 3600,
        idleSeconds: 95,
        alive: true,
        lastHeartbeatAt: '2024-06-30T12:09:58.000Z',
        busy: 4,
        connected: true,
      },
    ],
    pausedUntil: null,
  },
} satisfies Pick<StatusJson, 'postgres' | 'queue'>;

const failedRun: RunJson = {
  runId: 12,
  kind: 'backfill',
  status: 'failed',
  createdAt: '2024-06-30T12:00:03.114Z',
  finishedAt: '2024-06-30T12:04:41.870Z',
  errorCode: null,
  errorMessage: null,
  blockedDatasets: [],
  percentDone: 100,
  chunks: {
    total: 7,
    done: 6,
    missingUpstream: 0,
    failed: 1,
    inFlight: 0,
    running: 0,
    notYetDispatched: 0,
    dropped: 0,
    refetching: 0,
  },
  rows: 2592,
  calls: 9,
  recordsQuarantined: 0,
  recordsUnplaceable: 0,
  setAside: [
    {
      reason: 'share unit unknown',
      source: 'weather_history',
      values: 78,
      hours: 48,
      records: 48,
      fields: { humidity: 48, cloudCover: 30 },
      command: 'envdata rebuild --dataset weather',
      when: 'the worker fills them from the archive once a later weather answer tells the unit; if some stay after one has',
    },
  ],
  hours: { quarantined: 0, missingUpstream: 0, notCovered: 0, noData: 0 },
  revisions: {
    pollen: { rereadHours: 0, revisedHours: 0, revisedShare: null },
    weather: { rereadHours: 48, revisedHours: 3, revisedShare: 0.0625 },
  },
  failuresByCode: { SERVER_ERROR: 1 },
  waiting: null,
};

/** `envdata status --json`. */
export const STATUS_EXAMPLE: StatusJson = {
  kind: 'status',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  ...health,
  ledgerRead: true,
  maxLagHours: 36,
  runs: [
    {
      ...failedRun,
      runId: 13,
      kind: 'sync',
      status: 'running',
      createdAt: '2024-06-30T12:09:58.002Z',
      finishedAt: null,
      percentDone: 25,
      chunks: {
        total: 4,
        done: 1,
        missingUpstream: 0,
        failed: 0,
        inFlight: 3,
        running: 0,
        notYetDispatched: 0,
        dropped: 0,
        refetching: 0,
      },
      rows: 1152,
      calls: 1,
      setAside: [],
      failuresByCode: {},
      waiting: { reason: 'quota (day)', until: '2024-07-01T00:00:00.000Z', hint: null },
    },
    failedRun,
  ],
  setAside: failedRun.setAside,
  quota: {
    timeZone: 'UTC',
    currency: 'EUR',
    pricePerCall: '0.0004',
    budgetPerMonth: '300',
    windows: [
      {
        window: 'day',
        usedCalls: 45000,
        limitCalls: 50000,
        limitedBy: 'quota',
        reserveCalls: 5000,
        resetsAt: '2024-07-01T00:00:00.000Z',
        refusedByService: false,
        usedCost: '18',
      },
      {
        window: 'month',
        usedCalls: 512000,
        limitCalls: 750000,
        limitedBy: 'budget',
        reserveCalls: 0,
        resetsAt: '2024-07-01T00:00:00.000Z',
        refusedByService: false,
        usedCost: '204.8',
      },
    ],
  },
  undeliveredAlerts: 1,
  archive: { answers: 1840, bodies: 1838, bytesOnDisk: 9_437_184, retentionDays: 400 },
  lastExport: {
    target: '/data/parquet',
    finishedAt: '2024-06-30T03:12:40.000Z',
    partitionsWritten: 3,
    rowsWritten: 52_416,
    partitionsBehind: 1,
    oldestChangeAt: '2024-06-30T09:00:05.000Z',
  },
  freshness: [
    {
      locationId: 2,
      name: 'Brisbane',
      stale: true,
      datasets: {
        pollen: { lastHour: null, lagHours: null, knownEmpty: false, stale: true },
        weather: {
          lastHour: '2024-06-30T10:00:00.000Z',
          lagHours: 1.17,
          knownEmpty: false,
          stale: false,
        },
      },
    },
    {
      locationId: 1,
      name: 'Berlin',
      stale: false,
      datasets: {
        pollen: {
          lastHour: '2024-06-30T10:00:00.000Z',
          lagHours: 1.17,
          knownEmpty: false,
          stale: false,
        },
        weather: {
          lastHour: '2024-06-30T10:00:00.000Z',
          lagHours: 1.17,
          knownEmpty: false,
          stale: false,
        },
      },
    },
    {
      locationId: 3,
      name: 'São Paulo',
      stale: false,
      datasets: {
        pollen: { lastHour: null, lagHours: 1.17, knownEmpty: true, stale: false },
        weather: {
          lastHour: '2024-06-30T10:00:00.000Z',
          lagHours: 1.17,
          knownEmpty: false,
          stale: false,
        },
      },
    },
  ],
};

/** `envdata status 12 --json`. */
export const RUN_STATUS_EXAMPLE: RunStatusJson = {
  kind: 'run-status',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  ...health,
  ledgerRead: true,
  run: failedRun,
  failedChunks: [
    {
      code: 'SERVER_ERROR',
      message: 'the service failed at /history/weather with 503 after 3 attempt(s)',
      chunks: 1,
      examples: [
        {
          chunkId: 57,
          locationId: 1,
          location: 'Berlin',
          dataset: 'weather',
          from: '2024-06-16T00:00:00.000Z',
          to: '2024-06-18T00:00:00.000Z',
          attempts: 3,
          traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        },
      ],
    },
  ],
  unplaceableRecords: [],
};

/** `envdata locations list --json`. */
export const LOCATIONS_EXAMPLE: LocationsJson = {
  kind: 'locations',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  locations: [
    {
      locationId: 1,
      name: 'Zürich',
      aliases: ['Zurich'],
      answersToName: true,
      lat: 47.3769,
      lng: 8.5417,
      countryCode: 'CH',
      timezone: 'Europe/Zurich',
      pollenRegion: 'europe',
      place: 'Zürich, Switzerland',
      registeredBy: 'place',
      ingestByPlace: false,
      retiredAt: null,
    },
    {
      locationId: 3,
      name: 'Munich',
      aliases: [],
      answersToName: true,
      lat: 48.1351,
      lng: 11.582,
      countryCode: 'DE',
      timezone: 'Europe/Berlin',
      pollenRegion: 'europe',
      place: null,
      registeredBy: 'coordinates',
      ingestByPlace: false,
      retiredAt: '2024-06-29T08:15:00.000Z',
    },
  ],
};

/**
 * `envdata backfill --dataset pollen --from 2024-06-01 --to 2024-06-11 --window auto --dry-run
 * --json`, the key having learned that 7 days are accepted.
 */
export const BACKFILL_PLAN_EXAMPLE: BackfillPlanJson = {
  kind: 'backfill-plan',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  request: {
    datasets: ['pollen'],
    from: '2024-06-01T00:00:00.000Z',
    to: '2024-06-11T00:00:00.000Z',
    windowHours: 48,
    windowAuto: true,
    locations: [
      { locationId: 1, name: 'Berlin' },
      { locationId: 2, name: 'Brisbane' },
    ],
  },
  plan: {
    gaps: 2,
    chunks: 4,
    calls: 4,
    callsAt48h: 12,
    windowAuto: true,
    expectedRows: 7680,
    byDataset: { pollen: { chunks: 4, expectedRows: 7680, windowHours: 168 }, weather: null },
  },
  durationMs: 1001,
  rateLimits: ['10/s'],
  money: {
    currency: 'EUR',
    pricePerCall: '0.0004',
    cost: '0.0016',
    budget: {
      perMonth: '300',
      spentThisMonth: '12.5',
      plannedByUnfinishedRuns: '0',
      unfinishedRuns: 0,
      left: '287.5',
      overBudget: false,
    },
  },
  quotaDays: { days: 0.0001, boundBy: 'quota (day)', callsPerDay: 45000 },
  plannedByOtherRuns: [
    {
      runId: 12,
      status: 'paused',
      hours: 48,
      byLocation: [{ locationId: 1, name: 'Berlin', dataset: 'pollen', hours: 48, chunks: 1 }],
    },
  ],
  notes: [
    '1 chunk(s) of Berlin/pollen are left to run 12 (paused) (48 hour(s))',
    '48 hour(s) are already planned by run 12 (paused): resume it with `envdata resume 12`',
  ],
};

/** `envdata sync --dry-run --json`. */
export const SYNC_PLAN_EXAMPLE: SyncPlanJson = {
  kind: 'sync-plan',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  locations: 2,
  to: '2024-06-30T12:00:00.000Z',
  lookbackHours: 48,
  horizonHours: 720,
  windowHours: 48,
  history: {
    gaps: 4,
    chunks: 8,
    calls: 8,
    callsAt48h: 8,
    windowAuto: false,
    expectedRows: 1700,
    byDataset: {
      pollen: { chunks: 4, expectedRows: 1600, windowHours: 48 },
      weather: { chunks: 4, expectedRows: 100, windowHours: 48 },
    },
  },
  snapshotCalls: 10,
  calls: 18,
  durationMs: 1001,
  rateLimits: ['10/s'],
  money: { currency: 'EUR', pricePerCall: '0.0004', cost: '0.0072', budget: null },
  quotaDays: { days: 0.00002, boundBy: 'rate', callsPerDay: null },
  leftToBackfill: [
    {
      locationId: 2,
      location: 'Brisbane',
      dataset: 'weather',
      from: '1990-01-01T00:00:00.000Z',
      to: '2024-05-31T12:00:00.000Z',
    },
  ],
};

export const UPSTREAM_EXAMPLE: UpstreamJson = {
  kind: 'upstream',
  version: 1,
  generatedAt: '2024-06-30T12:00:00.000Z',
  shapes: [
    {
      shape: '3f2a9c1b7d4e',
      dataset: 'weather',
      source: 'history',
      status: 'baseline',
      firstSeenAt: '2024-06-01T02:00:03.000Z',
      lastSeenAt: '2024-06-29T02:00:41.000Z',
      answers: 1440,
      acceptedAt: '2024-06-01T02:00:03.000Z',
      sampleChunkId: 17,
      envelope: 'status, data.history[]',
      statusText: 'success',
      units: { humidity: 'fraction', cloudCover: 'fraction', precipProbability: 'fraction' },
      paths: {
        status: ['string'],
        data: ['object'],
        'data.history': ['array'],
        'data.history[]': ['object'],
        'data.history[].humidity': ['number'],
        'data.history[].time': ['number'],
      },
      previous: null,
      changes: null,
    },
    {
      shape: 'a81c02e95b10',
      dataset: 'weather',
      source: 'history',
      status: 'not accepted',
      firstSeenAt: '2024-06-30T02:00:05.000Z',
      lastSeenAt: '2024-06-30T02:00:40.000Z',
      answers: 48,
      acceptedAt: null,
      sampleChunkId: 1502,
      envelope: 'status, data.history[]',
      statusText: 'success',
      units: { cloudCover: 'fraction', precipProbability: 'fraction' },
      paths: {
        status: ['string'],
        data: ['object'],
        'data.history': ['array'],
        'data.history[]': ['object'],
        'data.history[].humidity': ['string'],
        'data.history[].time': ['number'],
      },
      previous: '3f2a9c1b7d4e',
      changes: {
        added: [],
        gone: [],
        typeChanged: [{ path: 'data.history[].humidity', from: ['number'], to: ['string'] }],
        unitChanged: [],
      },
    },
  ],
};

export const NOTIFICATION_EXAMPLE: NotificationJson = {
  kind: 'notification',
  version: 1,
  id: '42',
  event: 'key-refused',
  at: '2024-06-30T02:00:04.120Z',
  text: 'envdata: the service refused the API key (401); run 13 stopped and no run fetches until the key is fixed — to do: check ENVDATA_API_KEY, then envdata resume 13',
  details: {
    runId: 13,
    code: 'UNAUTHORIZED',
    message:
      'the service refused the API key (401): check ENVDATA_API_KEY (no retry can fix a refused key); the run stops until the key is fixed',
    action: 'fix the cause, then envdata resume 13',
  },
};

/** `envdata plan --json`. */
export const DECLARED_PLAN_EXAMPLE: DeclaredPlanJson = {
  kind: 'declared-plan',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  file: 'envdata.yaml',
  digest: '9f2c1e0b7d4a3f5e6c8b9a0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f',
  changes: true,
  owedRuns: [
    {
      ...failedRun,
      runId: 7,
      status: 'running',
      createdAt: '2024-06-29T09:30:00.000Z',
      finishedAt: null,
      percentDone: 80,
      chunks: {
        total: 845,
        done: 673,
        missingUpstream: 0,
        failed: 0,
        inFlight: 100,
        running: 0,
        notYetDispatched: 72,
        dropped: 0,
        refetching: 0,
      },
      rows: 242280,
      calls: 673,
      setAside: [],
      failuresByCode: {},
      waiting: { reason: 'no worker connected', until: null, hint: 'start `envdata worker`' },
    },
  ],
  workersConnected: 0,
  locations: {
    add: [
      {
        name: 'Valencia',
        lat: 39.4699,
        lng: -0.3763,
        countryCode: 'ES',
        declaredAt: 'envdata.yaml:9:5',
      },
    ],
    retire: [{ locationId: 3, name: 'Oslo' }],
    restore: [],
    unchanged: 2,
  },
  history: [
    {
      dataset: 'pollen',
      from: '2024-06-01T00:00:00.000Z',
      to: '2024-06-30T12:00:00.000Z',
      hours: 1020,
      locations: 2,
    },
  ],
  plan: {
    gaps: 2,
    chunks: 23,
    calls: 23,
    callsAt48h: 23,
    windowAuto: false,
    expectedRows: 8160,
    byDataset: { pollen: { chunks: 23, expectedRows: 8160, windowHours: 48 }, weather: null },
  },
  durationMs: 2300,
  rateLimits: ['10/s'],
  money: {
    currency: 'EUR',
    pricePerCall: '0.0004',
    cost: '0.0092',
    budget: null,
  },
  quotaDays: { days: 0.0005, boundBy: 'quota (day)', callsPerDay: 45000 },
  geocodeCalls: 1,
  notes: [],
};

export const LINEAGE_PENDING_EXAMPLE: LineagePendingJson = {
  kind: 'lineage-pending',
  version: 1,
  generatedAt: '2024-06-30T12:10:00.000Z',
  receiverSet: true,
  total: 3,
  events: [
    {
      id: '41',
      key: 'lineage:run:12:1:start',
      runId: 12,
      rebuildId: null,
      attempt: 1,
      kind: 'backfill',
      eventType: 'START',
      eventTime: '2024-06-30T12:00:03.114Z',
      recordedAt: '2024-06-30T12:00:03.114Z',
      attempts: 3,
      lastError: 'HTTP 503',
      nextAttemptAt: '2024-06-30T12:10:20.000Z',
    },
    {
      id: '44',
      key: 'lineage:run:12:1:end',
      runId: 12,
      rebuildId: null,
      attempt: 1,
      kind: 'backfill',
      eventType: 'COMPLETE',
      eventTime: '2024-06-30T12:04:41.870Z',
      recordedAt: '2024-06-30T12:04:41.870Z',
      attempts: 0,
      lastError: null,
      nextAttemptAt: null,
    },
    {
      id: '45',
      key: 'lineage:rebuild:0b6f1f9e-3c2d-4e57-9a41-6f0e2d1c8b7a:start',
      runId: null,
      rebuildId: '0b6f1f9e-3c2d-4e57-9a41-6f0e2d1c8b7a',
      attempt: 1,
      kind: 'rebuild',
      eventType: 'START',
      eventTime: '2024-06-30T12:06:12.402Z',
      recordedAt: '2024-06-30T12:06:12.402Z',
      attempts: 0,
      lastError: null,
      nextAttemptAt: null,
    },
  ],
};

export const EXPORT_EXAMPLE: ExportJson = {
  kind: 'export',
  version: 1,
  generatedAt: '2024-07-01T02:10:00.000Z',
  dir: '/data/envdata-parquet',
  snapshot: '1204:1207:1205',
  startedAt: '2024-07-01T02:09:41.000Z',
  finishedAt: '2024-07-01T02:09:59.000Z',
  written: ['weather_hourly/2024-06', 'weather_daily/2024-06', 'weather_daily/2024-07'],
  removed: [],
  unchanged: 212,
  rows: 1_452_000,
  bytes: 21_780_224,
};

export const EXPORT_VERIFY_EXAMPLE: ExportVerifyJson = {
  kind: 'export-verify',
  version: 1,
  generatedAt: '2024-07-01T02:20:00.000Z',
  dir: '/data/envdata-parquet',
  ok: false,
  partitions: 215,
  rowsChecked: 8_760_000,
  difference: {
    partition: 'weather_hourly/2024-06',
    file: 'dataset=weather_hourly/year=2024/month=06/part.parquet',
    reason:
      'the warehouse holds 1440001 rows, digest 553402322211286548; the file 1440000 rows, digest 553101123337162110',
  },
};
