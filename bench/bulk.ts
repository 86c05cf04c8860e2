/**
 * `npm run bench:bulk` — registering many locations in one transaction (issue 37): on a
 * Postgres with its stock lock settings (max_locks_per_transaction 64, max_connections 100, a
 * shared lock table of some 8,000 entries, printed first), `envdata plan -f` and `envdata apply
 * -f --yes` of a declared file of N points (a `file:` entry: a CSV), then `envdata locations
 * import` of a CSV of N other points into the same warehouse, then one of 1,000 more: each as a
 * command (`bin/envdata.js` in a child process), with its wall time, its peak resident set (the
 * child's own `process.resourceUsage().maxRSS`, reported at exit) and the most locks the
 * server's lock table held while it ran (`pg_locks`, sampled every 100 ms). Before migration 0045
 * a transaction took a lock per name, and 60,000 rows ended in "out of shared memory".
 *
 * It builds first (`npm run build`), so that bin/envdata.js runs the compiled program. The queue
 * apply writes to is BullMQ's Postgres backend in the bench database (nothing left in a Redis).
 * A measurement, not a test: it exits 0 whatever the figures, 1 when a command fails. The
 * database is dropped afterwards (unless `--keep`), on failure and on Ctrl-C too.
 *
 * Flags: --locations N (100000: ENVDATA_IMPORT_MAX_ROWS, the most one file holds), --keep.
 *
 * @example npm run bench:bulk
 * @example BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5433/postgres npm run bench:bulk -- --locations 20000
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import {
  benchOptions,
  DEFAULT_SERVER_URL,
  runInBenchDatabase,
  type BenchSession,
} from './lib/bench-database.js';
import { fmtInt, fmtMb, fmtSec, table } from './lib/report.js';

const BIN = fileURLToPath(new URL('../bin/envdata.js', import.meta.url));
const BUILD = fileURLToPath(new URL('../scripts/build.js', import.meta.url));
const SMALL = 1_000;

/** Preloaded into each child (`node --import`): at exit, its own peak RSS in bytes on fd 3. */
const REPORT_MAX_RSS =
  'data:text/javascript,import{writeSync}from"node:fs";' +
  'process.on("exit",()=>{try{writeSync(3,String(process.resourceUsage().maxRSS*1024))}catch{}});';

const options = benchOptions('bench:bulk', () => {
  const { values } = parseArgs({
    options: {
      locations: { type: 'string', default: '100000' },
      keep: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const locations = Number(values.locations);
  if (!Number.isSafeInteger(locations) || locations < 1) {
    throw new Error('--locations takes a whole number ≥ 1');
  }
  return { locations, keep: values.keep };
});

if (options) {
  console.log('building (npm run build)');
  const built = spawnSync(process.execPath, [BUILD], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`the build failed (exit ${built.status})`);
  // The bench is an entry point: the one place here that reads the environment.
  const server = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  await runInBenchDatabase(server, options.keep, (session) => bench(session, options.locations));
}

async function bench(session: BenchSession, n: number): Promise<void> {
  const { app } = session;
  const settings = await sql<{ name: string; setting: string }>`
    select name, setting from pg_settings
    where name in ('max_locks_per_transaction', 'max_connections', 'server_version')
    order by name`.execute(app.db);
  console.log(settings.rows.map((s) => `${s.name} ${s.setting}`).join(', '));

  const dir = await mkdtemp(path.join(tmpdir(), 'envdata-bench-bulk-'));
  try {
    await writePoints(path.join(dir, 'declared.csv'), 'Station', n, 0);
    await writePoints(path.join(dir, 'imported.csv'), 'Site', n, n);
    await writePoints(path.join(dir, 'small.csv'), 'Extra', SMALL, 2 * n);
    const declared = path.join(dir, 'envdata.yaml');
    await writeFile(
      declared,
      'version: 1\nlocations:\n  - { file: declared.csv }\ndatasets:\n  pollen: { since: -30d }\n  weather: { since: -30d }\n',
    );
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: session.bench.url,
      ENVDATA_QUEUE_BACKEND: 'postgres',
      ENVDATA_API_KEY: 'bench-bulk-key',
      LOG_LEVEL: 'warn',
    };
    const steps = [
      { name: `plan -f (${fmtInt(n)} points, file:)`, args: ['plan', '-f', declared] },
      { name: `apply -f --yes (${fmtInt(n)} points)`, args: ['apply', '-f', declared, '--yes'] },
      {
        name: `locations import (${fmtInt(n)} rows)`,
        args: ['locations', 'import', path.join(dir, 'imported.csv')],
      },
      {
        name: `locations import (${fmtInt(SMALL)} rows)`,
        args: ['locations', 'import', path.join(dir, 'small.csv')],
      },
    ];
    const rows: string[][] = [];
    for (const step of steps) {
      session.stopIfInterrupted();
      console.log(`envdata ${step.name}…`);
      const run = await timeChild(step.args, env, session);
      if (run.code !== 0) {
        throw new Error(
          `envdata ${step.args.join(' ')} exited ${run.code}: ${lastLine(run.stderr)}`,
        );
      }
      rows.push([
        step.name,
        String(run.code),
        fmtSec(run.seconds),
        fmtMb(run.maxRss),
        fmtInt(run.maxLocks),
      ]);
    }
    const { rows: registered } = await sql<{ n: number }>`
      select count(*)::int as n from envdata.location`.execute(app.db);
    console.log('');
    console.log(table(['envdata', 'exit', 'wall s', 'max RSS', 'max locks held'], rows));
    console.log(`\n${fmtInt(registered[0]!.n)} locations registered`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A CSV of `rows` point rows (`prefix 1…`), on a grid of distinct points from grid cell `from`. */
async function writePoints(file: string, prefix: string, rows: number, from: number) {
  const out = createWriteStream(file);
  out.write('name,lat,lng\n');
  for (let i = 0; i < rows; i += 1) {
    const cell = from + i;
    const lat = (30 + Math.floor(cell / 1_000) * 0.05).toFixed(2);
    const lng = ((cell % 1_000) * 0.1).toFixed(1);
    if (!out.write(`${prefix} ${i + 1},${lat},${lng}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

/**
 * Runs `envdata ARGS…` to its end: wall time, exit code, peak RSS (bytes), standard error, and
 * the most rows `pg_locks` showed on the server meanwhile.
 */
async function timeChild(
  args: readonly string[],
  env: Record<string, string>,
  session: BenchSession,
): Promise<{
  seconds: number;
  code: number | null;
  maxRss: number;
  maxLocks: number;
  stderr: string;
}> {
  let maxLocks = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks`.execute(session.app.db);
      maxLocks = Math.max(maxLocks, rows[0]!.n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const started = performance.now();
  const result = await new Promise<{ code: number | null; maxRss: number; stderr: string }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ['--import', REPORT_MAX_RSS, BIN, ...args], {
        env,
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      let rss = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      (child.stdio[3] as NodeJS.ReadableStream).on(
        'data',
        (chunk: Buffer) => (rss += String(chunk)),
      );
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, maxRss: Number(rss), stderr }));
    },
  );
  const seconds = (performance.now() - started) / 1000;
  sampling = false;
  await sampler;
  return { ...result, seconds, maxLocks };
}
