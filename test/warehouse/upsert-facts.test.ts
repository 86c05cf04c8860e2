import {
  RawNode,
  sql,
  type Kysely,
  type KyselyPlugin,
  type OperationNode,
  type RootOperationNode,
} from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { POLLEN_SPECIES_HOURLY } from '../../src/datasets/pollen/pollen-tables.js';
import { WEATHER_HOURLY } from '../../src/datasets/weather/weather-tables.js';
import type { PollenSpeciesRow } from '../../src/datasets/pollen/pollen-rows.js';
import type { WeatherRow } from '../../src/datasets/weather/weather-rows.js';
import type { FactRow } from '../../src/warehouse/fact-rows.js';
import type { Database } from '../../src/warehouse/schema.js';
import type { FactTable } from '../../src/warehouse/fact-table.js';
import type { LocatedRows } from '../../src/warehouse/located-rows.js';
import { stageRows } from '../../src/warehouse/wire/index.js';
import { defineFactTable, type FactTableSpec } from '../../src/warehouse/fact-table-spec.js';
import { SpeciesIds } from '../../src/warehouse/species-ids.js';
import { upsertFacts } from '../harness/upsert-facts.js';
import {
  ALL_TECHNIQUES,
  RowsStoredAlready,
  writeFacts as writeBatch,
} from '../../src/warehouse/write-facts.js';
import { pollUntil } from '../harness/poll-until.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();

/** Writes `groups` into a dataset's fact table as the FactWriter does: in a transaction. */
function writeFacts<Row extends FactRow>(
  db: Kysely<Database>,
  table: FactTable<Row>,
  groups: readonly LocatedRows<Row>[],
  species = new SpeciesIds(),
): Promise<number> {
  return db
    .transaction()
    .execute((trx) => upsertFacts(trx, table.spec({ species }) as FactTableSpec<Row>, groups));
}

/** A fact row of the scratch table: every column type a fact table can have. */
interface ScratchRow {
  readonly observedAt: Date;
  readonly tag: string;
  readonly x: number | null;
  readonly n: number | null;
  readonly small: number | null;
  readonly note: string | null;
  readonly mood: 'sad' | 'ok' | 'glad' | null;
}

const SCRATCH = defineFactTable<ScratchRow>({
  table: 'scratch.facts',
  key: [{ name: 'tag', type: 'text', value: (r) => r.tag }],
  columns: [
    { name: 'x', type: 'real', value: (r) => r.x },
    { name: 'n', type: 'int', value: (r) => r.n },
    { name: 'small', type: 'smallint', value: (r) => r.small },
    { name: 'note', type: 'text', value: (r) => r.note },
    { name: 'mood', type: 'scratch.mood', value: (r) => r.mood },
  ],
});

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 2, 1);
const at = (hour: number) => new Date(T0 + hour * HOUR);

/** Hours `[from, to)` × tags a and b; values a pure function of (hour, tag, version). */
function scratchRows(from: number, to: number, version = 0): ScratchRow[] {
  const rows: ScratchRow[] = [];
  for (let h = from; h < to; h++) {
    for (const tag of ['b', 'a']) {
      rows.push({
        observedAt: at(h),
        tag,
        x: 0.1 * h + version,
        n: h * 7 + version,
        small: h % 100,
        note: h % 3 === 0 ? null : `hour ${h}${tag}`,
        mood: (['sad', 'ok', 'glad', null] as const)[h % 4]!,
      });
    }
  }
  return rows;
}

/** Strings an array literal must quote or escape, and values float4 and JS round apart. */
const AWKWARD: ScratchRow[] = [
  {
    observedAt: at(0),
    tag: 'quote"',
    x: Number.NaN,
    n: 0,
    small: -1,
    note: 'say "hi"',
    mood: 'ok',
  },
  {
    observedAt: at(0),
    tag: 'back\\slash',
    x: Infinity,
    n: -5,
    small: 32_767,
    note: 'C:\\dir\\',
    mood: null,
  },
  {
    observedAt: at(0),
    tag: 'comma,brace}',
    x: -Infinity,
    n: null,
    small: null,
    note: '{a,b}',
    mood: 'sad',
  },
  { observedAt: at(0), tag: 'NULL', x: -0, n: 2_147_483_647, small: 0, note: 'NULL', mood: 'glad' },
  { observedAt: at(0), tag: 'ünï €😀', x: 1e-7, n: 1, small: 1, note: '', mood: 'glad' },
  { observedAt: at(0), tag: ' spaced ', x: 0.3, n: 2, small: 2, note: ' ', mood: 'ok' },
];

let berlin: number;
let paris: number;

beforeAll(async () => {
  berlin = (await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' }))
    .locationId;
  paris = (await wh.addLocation({ name: 'Paris', lat: 48.8566, lng: 2.3522, countryCode: 'FR' }))
    .locationId;
  await sql`
    create schema scratch;
    create type scratch.mood as enum ('sad', 'ok', 'glad');
    create table scratch.facts (
      location_id int not null references envdata.location on delete cascade,
      observed_at timestamptz not null,
      tag text not null,
      x real, n int, small smallint, note text, mood scratch.mood, answer_id bigint,
      primary key (location_id, observed_at, tag))`.execute(wh.app.db);
});

/** A raw statement's text, its nested raw parts in place and `$` for each value. */
function rawText(node: OperationNode): string {
  if (!RawNode.is(node)) return '$';
  return node.sqlFragments
    .map((f, i) => f + (i < node.parameters.length ? rawText(node.parameters[i]!) : ''))
    .join('');
}

/**
 * The app's database, noting the first words of every statement run through it.
 */
function withStatementLog(db: Kysely<Database>): { db: Kysely<Database>; statements: string[] } {
  const statements: string[] = [];
  const plugin: KyselyPlugin = {
    transformQuery({ node }): RootOperationNode {
      if (node.kind === 'RawNode') {
        const text = rawText(node);
        statements.push(text.trim().split(/\s+/).slice(0, 2).join(' '));
      }
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return { db: db.withPlugin(plugin), statements };
}

interface StoredScratch extends Omit<ScratchRow, 'observedAt'> {
  readonly observed_at: Date;
  readonly xmin: string;
}

async function stored(locationId: number): Promise<StoredScratch[]> {
  const { rows } = await sql<StoredScratch>`
    select observed_at, tag, x, n, small, note, mood::text as mood, xmin::text as xmin
    from scratch.facts where location_id = ${locationId}
    order by observed_at, tag collate "C"`.execute(wh.app.db);
  return rows;
}

async function clear(): Promise<void> {
  await sql`truncate scratch.facts`.execute(wh.app.db);
}

describe('upsertFacts', () => {
  it('lands a fresh batch with the probe and one upsert; every value type round-trips', async () => {
    await clear();
    const { db, statements } = withStatementLog(wh.app.db);
    const groups = [
      { locationId: berlin, rows: [...AWKWARD, ...scratchRows(1, 4)] },
      { locationId: paris, rows: scratchRows(0, 2) },
    ];

    expect(await upsertFacts(db, SCRATCH, groups)).toBe(AWKWARD.length + 6 + 4);

    expect(statements).toEqual(['select g.i::int', 'with u']);
    const rows = await stored(berlin);
    const awkward = rows.filter((r) => r.observed_at.getTime() === T0);
    expect(awkward.map((r) => [r.tag, r.x, r.n, r.small, r.note, r.mood])).toEqual(
      [...AWKWARD]
        .sort((a, b) => Buffer.compare(Buffer.from(a.tag), Buffer.from(b.tag)))
        // -0 lands as 0 (sent as "0"); float4 prints back the shortest text, 0.3 as 0.3.
        .map((r) => [r.tag, r.x === 0 ? 0 : r.x, r.n, r.small, r.note, r.mood]),
    );
    expect(await stored(paris)).toHaveLength(4);
  });

  it('re-landing identical rows writes nothing, runs no insert and leaves every row version', async () => {
    await clear();
    const groups = [
      { locationId: berlin, rows: [...AWKWARD, ...scratchRows(1, 48)] },
      { locationId: paris, rows: scratchRows(0, 48) },
    ];
    await upsertFacts(wh.app.db, SCRATCH, groups);
    const before = await stored(berlin);
    const { db, statements } = withStatementLog(wh.app.db);

    // Rows in another order than the key's: the digest sorts them.
    const reordered = groups.map((g) => ({ ...g, rows: [...g.rows].reverse() }));
    expect(await upsertFacts(db, SCRATCH, reordered)).toBe(0);

    expect(statements.filter((s) => s !== 'begin' && s !== 'commit')).toEqual(['select g.i::int']);
    expect(await stored(berlin)).toEqual(before);
  });

  it('writes only the rows that changed or are new, and leaves the identical ones alone', async () => {
    await clear();
    await upsertFacts(wh.app.db, SCRATCH, [
      { locationId: berlin, rows: scratchRows(0, 24) },
      { locationId: paris, rows: scratchRows(0, 24) },
    ]);
    const before = await stored(berlin);
    const changed = scratchRows(0, 24).map((r) =>
      r.observedAt.getTime() === at(5).getTime() && r.tag === 'a'
        ? { ...r, x: null, note: 'corrected "value"', mood: 'glad' as const }
        : r,
    );

    const written = await upsertFacts(wh.app.db, SCRATCH, [
      { locationId: berlin, rows: changed },
      { locationId: paris, rows: scratchRows(0, 24) }, // identical: left out
      { locationId: paris, rows: scratchRows(24, 26) }, // new
    ]);

    expect(written).toBe(1 + 4);
    const after = await stored(berlin);
    const differs = after.filter((r, i) => r.xmin !== before[i]!.xmin);
    expect(differs.map((r) => [r.observed_at, r.tag, r.x, r.note, r.mood])).toEqual([
      [at(5), 'a', null, 'corrected "value"', 'glad'],
    ]);
    expect(await stored(paris)).toHaveLength(52);
  });

  it('a batch holding fewer rows than stored in its hours upserts and deletes nothing', async () => {
    await clear();
    await upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: scratchRows(0, 10) }]);
    const fewer = scratchRows(0, 10, 1).filter((r) => r.tag === 'a');

    expect(await upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: fewer }])).toBe(10);

    const rows = await stored(berlin);
    expect(rows).toHaveLength(20);
    expect(rows.filter((r) => r.tag === 'a').map((r) => r.n)).toEqual(fewer.map((r) => r.n));
    expect(rows.filter((r) => r.tag === 'b').map((r) => r.n)).toEqual(
      scratchRows(0, 10)
        .filter((r) => r.tag === 'b')
        .map((r) => r.n),
    );
  });

  it('falls back to the upsert when a concurrent landing stores the same keys first', async () => {
    await clear();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const firstWrote = new Promise<void>((resolve) => (wrote = resolve));
    const first = wh.app.db.transaction().execute(async (trx) => {
      const n = await upsertFacts(trx, SCRATCH, [{ locationId: berlin, rows: scratchRows(0, 6) }]);
      wrote();
      await gate;
      return n;
    });
    // Released whatever happens below: an open first landing would hold its keys for the next tests.
    try {
      // Its rows written, not committed: the second landing must come after them, not race them.
      await Promise.race([firstWrote, first]);
      expect(await stored(berlin)).toHaveLength(0);
      const second = scratchRows(0, 6).map((r, i) => (i === 3 ? { ...r, n: -1 } : r));
      const secondLanding = upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: second }]);
      // The second landing found nothing stored, so its plain insert waits on the first's keys.
      await pollUntil(
        async () => {
          const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(wh.app.db);
          return rows[0]!.n > 0 ? { done: undefined } : { last: rows[0]!.n };
        },
        { describe: () => 'the second landing never waited on the first one' },
      );
      release();

      expect(await first).toBe(12);
      expect(await secondLanding).toBe(1);
      const rows = await stored(berlin);
      expect(rows).toHaveLength(12);
      expect(rows.map((r) => r.n)).toEqual(
        [...second]
          .sort(
            (a, b) => a.observedAt.getTime() - b.observedAt.getTime() || (a.tag < b.tag ? -1 : 1),
          )
          .map((r) => r.n),
      );
    } finally {
      release();
      await first.catch(() => undefined);
    }
  });

  it('with assumeNew, a fresh batch is one binary COPY, encoded now when not staged; with the COPY off, one plain insert', async () => {
    await clear();
    const { db, statements } = withStatementLog(wh.app.db);
    const rows = (hour: number) => [{ locationId: berlin, rows: scratchRows(hour, hour + 6) }];

    const copied = await db
      .transaction()
      .execute((trx) => upsertFacts(trx, SCRATCH, rows(0), { assumeNew: true }));
    const inserted = await db.transaction().execute((trx) =>
      writeBatch(trx, [{ spec: SCRATCH as FactTableSpec<FactRow>, groups: rows(6) }], {
        assumeNew: true,
        techniques: { ...ALL_TECHNIQUES, copy: false },
      }),
    );

    expect([copied, inserted]).toEqual([12, [12]]);
    expect(statements).toEqual(['copy $', 'insert into']);
    expect(await stored(berlin)).toHaveLength(24);
  });

  it('with assumeNew and every group encoded ahead, a fresh batch is one binary COPY; every value type round-trips as the insert stores it', async () => {
    await clear();
    const groups = [
      { locationId: berlin, rows: [...AWKWARD, ...scratchRows(1, 4)] },
      { locationId: paris, rows: scratchRows(0, 2) },
    ];
    // The insert's rows: what Postgres stores reading them its own way.
    const values = async () =>
      [...(await stored(berlin)), ...(await stored(paris))].map(({ xmin: _, ...r }) => r);
    await upsertFacts(wh.app.db, SCRATCH, groups);
    const inserted = await values();
    await clear();
    const encoded = groups.map((g) => ({
      ...g,
      staged: stageRows(SCRATCH, g.locationId, g.rows, null),
    }));
    expect(encoded.every((g) => g.staged.copyTuples !== undefined)).toBe(true);
    const { db, statements } = withStatementLog(wh.app.db);

    const written = await db
      .transaction()
      .execute((trx) => upsertFacts(trx, SCRATCH, encoded, { assumeNew: true }));

    expect(written).toBe(AWKWARD.length + 6 + 4);
    expect(statements.map((s) => s.split(' ')[0])).toEqual(['copy']);
    expect(await values()).toEqual(inserted);
  });

  it('with assumeNew, a COPY of rows stored already aborts the transaction as the insert does', async () => {
    await clear();
    const rows = scratchRows(0, 3);
    await upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: rows.slice(0, 2) }]);
    const group = {
      locationId: berlin,
      rows,
      staged: stageRows(SCRATCH, berlin, rows, null),
    };

    await expect(
      wh.app.db
        .transaction()
        .execute((trx) => upsertFacts(trx, SCRATCH, [group], { assumeNew: true })),
    ).rejects.toBeInstanceOf(RowsStoredAlready);
    // Outside a transaction, the write runs again with the probe and stores the other 4.
    expect(await upsertFacts(wh.app.db, SCRATCH, [group], { assumeNew: true })).toBe(4);
    expect(await stored(berlin)).toHaveLength(6);
  });

  it('with assumeNew, rows stored after all abort the transaction; outside one the write runs again with the probe', async () => {
    await clear();
    await upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: scratchRows(0, 4) }]);
    const before = await stored(berlin);
    const batch = [{ locationId: berlin, rows: scratchRows(0, 6, 0) }];
    batch[0]!.rows[1] = { ...batch[0]!.rows[1]!, n: -7 };

    await expect(
      wh.app.db
        .transaction()
        .execute((trx) => upsertFacts(trx, SCRATCH, batch, { assumeNew: true })),
    ).rejects.toBeInstanceOf(RowsStoredAlready);
    expect(await stored(berlin)).toEqual(before);

    // Its own transaction: the second try probes, so 4 new rows and the 1 changed one land.
    expect(await upsertFacts(wh.app.db, SCRATCH, batch, { assumeNew: true })).toBe(4 + 1);
    const after = await stored(berlin);
    expect(after).toHaveLength(12);
    expect(after.filter((r) => r.n === -7)).toHaveLength(1);
  });

  it('sends values whose binary form could differ from their text as text: Postgres decides, as always', async () => {
    await clear();
    // Exactly halfway between the float4 1 and the next: rounding the double (to even) gives 1;
    // Postgres reading "1.0000000596046448" rounds up. The second batch stays binary.
    const midpoint = 1 + 2 ** -24;
    const plain = 1 + 2 ** -22;
    await upsertFacts(wh.app.db, SCRATCH, [
      { locationId: berlin, rows: [{ ...scratchRows(0, 1)[0]!, x: midpoint }] },
    ]);
    await upsertFacts(wh.app.db, SCRATCH, [
      { locationId: paris, rows: [{ ...scratchRows(0, 1)[0]!, x: plain }] },
    ]);

    const { rows } = await sql<{ location_id: number; x: number; text_x: number }>`
      select location_id, x::float8 as x,
        (case location_id when ${berlin} then ${String(midpoint)} else ${String(plain)} end)::real::float8
          as text_x
      from scratch.facts order by location_id`.execute(wh.app.db);
    expect(rows.map((r) => r.x)).toEqual(rows.map((r) => r.text_x));
    expect(rows.find((r) => r.location_id === berlin)!.x).toBeGreaterThan(1);
  });

  it('refuses, as Postgres does, a real out of float4 range and a fractional int, storing nothing', async () => {
    await clear();
    const row = scratchRows(0, 1)[0]!;
    await expect(
      upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: [{ ...row, x: 1e39 }] }]),
    ).rejects.toThrow(/out of range/);
    await expect(
      upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: [{ ...row, n: 2.5 }] }]),
    ).rejects.toThrow(/invalid input syntax for type integer/);
    expect(await stored(berlin)).toEqual([]);
  });

  it('writes nothing for no rows', async () => {
    expect(await upsertFacts(wh.app.db, SCRATCH, [])).toBe(0);
    expect(await upsertFacts(wh.app.db, SCRATCH, [{ locationId: berlin, rows: [] }])).toBe(0);
  });
});

describe('the fact tables', () => {
  function weatherRows(from: number, to: number): WeatherRow[] {
    const rows: WeatherRow[] = [];
    for (let h = from; h < to; h++) {
      rows.push({
        observedAt: at(h),
        temperatureC: 4.2 + h / 10,
        apparentTemperatureC: 1.9,
        dewPointC: -0.7,
        humidityFraction: 0.81,
        pressureHpa: 1013.4,
        windSpeedMs: 3.3,
        windGustMs: null,
        windBearingDeg: 240,
        cloudCoverFraction: 0.9,
        visibilityKm: 16.09,
        uvIndex: 0,
        ozoneDu: 311.2,
        precipIntensityMmH: 0.05,
        precipProbabilityFraction: 0.3,
        precipType: h % 2 ? 'rain' : null,
        summary: 'Light Rain',
        icon: 'rain',
        iconRaw: 'rain',
      });
    }
    return rows;
  }

  it("weather (its dataset's table) lands, and lands again without a write", async () => {
    const groups: LocatedRows<WeatherRow>[] = [{ locationId: paris, rows: weatherRows(0, 48) }];
    expect(await writeFacts(wh.app.db, WEATHER_HOURLY, groups)).toBe(48);
    const { db, statements } = withStatementLog(wh.app.db);

    expect(await writeFacts(db, WEATHER_HOURLY, groups)).toBe(0);
    expect(statements.some((s) => s.startsWith('insert') || s.startsWith('with'))).toBe(false);

    const hotter = [
      { ...groups[0]!, rows: groups[0]!.rows.map((r) => ({ ...r, temperatureC: 30 })) },
    ];
    expect(await writeFacts(wh.app.db, WEATHER_HOURLY, hotter)).toBe(48);
  });

  it('pollen by species lands under its species ids, and lands again without a write', async () => {
    const species = new SpeciesIds();
    const rows: PollenSpeciesRow[] = [];
    for (let h = 0; h < 24; h++) {
      rows.push({
        observedAt: at(h),
        category: 'tree',
        species: 'Birch',
        count: h,
        riskLevel: 'Low',
      });
      rows.push({
        observedAt: at(h),
        category: 'grass',
        species: 'Grass / Poaceae',
        count: 2 * h,
        riskLevel: null,
      });
      rows.push({
        observedAt: at(h),
        category: 'other',
        species: 'Others',
        count: 1,
        riskLevel: null,
      });
    }
    await species.resolve(wh.app.db, rows);
    const groups = [{ locationId: berlin, rows }];
    expect(await writeFacts(wh.app.db, POLLEN_SPECIES_HOURLY, groups, species)).toBe(72);
    const { db, statements } = withStatementLog(wh.app.db);

    expect(await writeFacts(db, POLLEN_SPECIES_HOURLY, groups, species)).toBe(0);
    expect(statements.some((s) => s.startsWith('insert') || s.startsWith('with'))).toBe(false);
    const { rows: stored } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.pollen_species_hourly s
      join envdata.pollen_species p using (species_id)
      where s.location_id = ${berlin} and p.name = 'Birch' and s.count = 23`.execute(wh.app.db);
    expect(stored[0]!.n).toBe(1);
  });
});

describe('defineFactTable', () => {
  it('refuses names and types that are not plain identifiers, listing every problem', () => {
    expect(() =>
      defineFactTable<ScratchRow>({
        table: 'scratch.facts; drop table x',
        key: [],
        columns: [
          { name: 'x"', type: 'real', value: (r) => r.x },
          { name: 'note', type: 'text; --' as 'text', value: (r) => r.note },
        ],
      }),
    ).toThrow(/table "scratch\.facts; drop table x".*column "x"".*type "text; --"/);
  });
});
