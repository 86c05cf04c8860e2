import type { Location } from '../../src/locations/location.js';
import type { Logger } from '../../src/logging/create-logger.js';
import { createDatabase } from '../../src/warehouse/create-database.js';
import type { App } from '../../src/app.js';
import { checkpoint } from './bench-database.js';
import { LandingRun, planBackfill } from './landing-run.js';
import { table } from './report.js';
import { ALL_ON, TECHNIQUES, type Technique, type Techniques } from './techniques.js';

const DAY_MS = 86_400_000;

/** A technique earning less than this on weather, fresh or re-landed, is not worth its code. */
export const KEEP_THRESHOLD = 0.05;

interface Timing {
  readonly fresh: number;
  readonly reland: number;
}

export interface TechniqueOptions {
  readonly locations: readonly Location[];
  readonly days: number;
  readonly batch: number;
  readonly archiveRaw: boolean;
  /** The first year landed is the one before this; each run takes the year before the last. */
  readonly beforeYear: number;
  readonly repeat: number;
}

/**
 * Lands weather fresh, then again identical, with every technique on and with each switched off
 * in turn, `repeat` times in alternating order; each run lands a year of its own, so it starts
 * with empty partitions as the first did. Prints the median seconds inside `land()` and what
 * each technique earns: how much longer its run took without it.
 */
export async function compareTechniques(
  app: App,
  url: string,
  options: TechniqueOptions,
  stop: () => void,
): Promise<void> {
  const variants: (Technique | undefined)[] = [
    undefined,
    ...(Object.keys(TECHNIQUES) as Technique[]),
  ];
  const timings = new Map<Technique | undefined, Timing[]>(variants.map((v) => [v, []]));
  let year = options.beforeYear;
  for (let r = 0; r < options.repeat; r++) {
    for (const off of r % 2 === 0 ? variants : [...variants].reverse()) {
      stop();
      year -= 1;
      const techniques: Techniques = off ? { ...ALL_ON, [off]: false } : ALL_ON;
      const timing = await landYear(app, url, { ...options, year, techniques }, stop);
      timings.get(off)!.push(timing);
      console.log(
        `  ${off ?? 'all on'} (${year}): fresh ${timing.fresh.toFixed(2)} s, re-land ${timing.reland.toFixed(2)} s`,
      );
    }
  }
  printComparison(timings, options);
}

async function landYear(
  app: App,
  url: string,
  options: TechniqueOptions & { readonly year: number; readonly techniques: Techniques },
  stop: () => void,
): Promise<Timing> {
  const from = new Date(Date.UTC(options.year, 0, 1));
  const to = new Date(from.getTime() + options.days * DAY_MS);
  const runId = await planBackfill(app.db, {
    locations: options.locations,
    from,
    to,
    datasets: ['weather'],
  });
  const db = createDatabase({
    url,
    poolMax: 10,
    logger: app.logger as Logger,
    preparedStatements: options.techniques.prepare,
  });
  try {
    const run = new LandingRun(db, runId, options.locations, {
      batch: options.batch,
      archiveRaw: options.archiveRaw,
      techniques: options.techniques,
      datasets: ['weather'],
    });
    await checkpoint(app.db);
    const fresh = await run.landAll(stop);
    await checkpoint(app.db);
    const reland = await run.landAll(stop);
    return { fresh: fresh.weather.landSeconds, reland: reland.weather.landSeconds };
  } finally {
    await db.destroy();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function printComparison(
  timings: ReadonlyMap<Technique | undefined, readonly Timing[]>,
  options: TechniqueOptions,
): void {
  const on = timings.get(undefined)!;
  const base = { fresh: median(on.map((t) => t.fresh)), reland: median(on.map((t) => t.reland)) };
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)} %`;
  const rows = [...timings].map(([off, runs]) => {
    const fresh = median(runs.map((t) => t.fresh));
    const reland = median(runs.map((t) => t.reland));
    if (off === undefined) {
      return ['(every technique on)', fresh.toFixed(2), reland.toFixed(2), '', '', ''];
    }
    const earns = { fresh: fresh / base.fresh - 1, reland: reland / base.reland - 1 };
    const keep = Math.max(earns.fresh, earns.reland) >= KEEP_THRESHOLD;
    return [
      `without ${off}`,
      fresh.toFixed(2),
      reland.toFixed(2),
      pct(earns.fresh),
      pct(earns.reland),
      keep ? 'earns its keep' : `under ${100 * KEEP_THRESHOLD} %`,
    ];
  });
  console.log(
    `\nweather, ${options.locations.length} locations × ${options.days} days, batch ${options.batch}, ` +
      `median of ${options.repeat} runs each (seconds inside land()); "earns": how much longer ` +
      `the landing took without the technique\n`,
  );
  console.log(
    table(['run', 'fresh s', 're-land s', 'earns fresh', 'earns re-land', 'verdict'], rows),
  );
  console.log('');
  for (const [name, what] of Object.entries(TECHNIQUES)) console.log(`  ${name}: ${what}`);
}
