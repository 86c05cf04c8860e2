/**
 * `npm run bench:cli` — what starting `envdata` costs: in one process, `node -e 0` (the floor:
 * Node itself) and `envdata --help`, `envdata status` (against a migrated scratch database),
 * `envdata locations list` and `envdata backfill --dry-run` over 100 locations (added by the
 * bench), --runs times each, alternating so that a busy moment of the machine falls on all of
 * them. Prints each one's median wall time, its maximum resident set (the child's own
 * `process.resourceUsage().maxRSS`, reported at exit) and its ratio to `node -e 0`, against the
 * targets of issue 25; then the worker's steady-state RSS (`envdata worker` started, idle, its
 * VmRSS sampled for a few seconds). The queue is BullMQ's Postgres backend in the same database
 * (ENVDATA_QUEUE_BACKEND=postgres), so that no Redis is needed and nothing is left anywhere.
 *
 * It builds first (`npm run build`), so that bin/envdata.js runs the compiled program. With
 * `--bin PATH` it measures another checkout's bin/envdata.js instead, as it is: how the figures
 * before the build were taken (`--bin /path/to/old/checkout/bin/envdata.js`).
 *
 * A measurement, not a test: it exits 0 whether the targets are met or not, and names misses
 * last. The database is dropped afterwards, on failure and on Ctrl-C too.
 *
 * Flags: --runs N (10), --bin PATH (this checkout's bin/envdata.js), --no-worker.
 *
 * @example npm run bench:cli -- --runs 5
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  benchOptions,
  DEFAULT_SERVER_URL,
  runInBenchDatabase,
  type BenchSession,
} from './lib/bench-database.js';
import { addBenchLocations } from './lib/bench-locations.js';
import { fmtMb, fmtSec, printMisses, table, verdict } from './lib/report.js';

const OWN_BIN = fileURLToPath(new URL('../bin/envdata.js', import.meta.url));
const BUILD = fileURLToPath(new URL('../scripts/build.js', import.meta.url));
const LOCATIONS = 100;
/** How long the idle worker's RSS is sampled, and how often. */
const WORKER_SAMPLE_MS = 5_000;
const WORKER_SAMPLE_EVERY_MS = 250;

/**
 * Preloaded into every child (`node --import`): at exit, its own peak RSS in bytes on fd 3.
 * The same for `node -e 0`, so the floor pays it too.
 */
const REPORT_MAX_RSS =
  'data:text/javascript,import{writeSync}from"node:fs";' +
  'process.on("exit",()=>{try{writeSync(3,String(process.resourceUsage().maxRSS*1024))}catch{}});';

interface Subject {
  readonly name: string;
  readonly args: readonly string[];
  /** Seconds of median wall time it may take, and bytes of RSS, when judged. */
  readonly targetSeconds?: number;
  readonly targetBytes?: number;
}

const options = benchOptions('bench:cli', () => {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '10' },
      bin: { type: 'string' },
      'no-worker': { type: 'boolean', default: false },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isSafeInteger(runs) || runs < 1) throw new Error('--runs must be a whole number ≥ 1');
  return { runs, bin: values.bin ?? OWN_BIN, worker: !values['no-worker'] };
});

if (options) {
  if (options.bin === OWN_BIN) {
    console.log('building (npm run build)');
    const built = spawnSync(process.execPath, [BUILD], { stdio: 'inherit' });
    if (built.status !== 0) throw new Error(`the build failed (exit ${built.status})`);
  }
  // The bench is an entry point: the one place here that reads the environment.
  const server = process.env.BENCH_DATABASE_URL ?? DEFAULT_SERVER_URL;
  await runInBenchDatabase(server, false, (session) => bench(session, options));
}

async function bench(
  session: BenchSession,
  { runs, bin, worker }: { runs: number; bin: string; worker: boolean },
): Promise<void> {
  await addBenchLocations(session.app.db, LOCATIONS);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DATABASE_URL: session.bench.url,
    // The queue in the bench database too: nothing is left behind in a shared Redis.
    ENVDATA_QUEUE_BACKEND: 'postgres',
    LOG_LEVEL: 'warn',
  };
  const subjects: Subject[] = [
    { name: 'node -e 0', args: ['-e', '0'] },
    {
      name: 'envdata --help',
      args: [bin, '--help'],
      targetSeconds: 0.35,
      targetBytes: 90 * 1_048_576,
    },
    { name: 'envdata status', args: [bin, 'status'], targetSeconds: 0.8 },
    { name: 'envdata locations list', args: [bin, 'locations', 'list'], targetSeconds: 0.8 },
    {
      name: `envdata backfill --dry-run (${LOCATIONS} locations, 10 years)`,
      args: [
        bin,
        ...['backfill', '--dry-run', '--dataset', 'all', '--from', '2016-01-01'],
        ...['--to', '2026-01-01'],
      ],
      targetSeconds: 1.5,
    },
  ];
  console.log(`${bin}: ${runs} run(s) of each, alternating\n`);
  const samples = subjects.map(() => ({ seconds: [] as number[], bytes: [] as number[] }));
  const failures: string[] = [];
  for (let round = 0; round < runs; round++) {
    for (const [i, subject] of subjects.entries()) {
      session.stopIfInterrupted();
      const run = await timeChild(subject.args, env);
      if (run.code !== 0 && !failures.some((f) => f.startsWith(subject.name))) {
        failures.push(`${subject.name} exited ${run.code}: ${run.stderr.split('\n')[0]}`);
      }
      samples[i]!.seconds.push(run.seconds);
      samples[i]!.bytes.push(run.maxRss);
    }
  }
  const floor = median(samples[0]!.seconds);
  const misses: string[] = [...failures];
  const rows = subjects.map((subject, i) => {
    const seconds = median(samples[i]!.seconds);
    const bytes = Math.max(...samples[i]!.bytes);
    const timeOk = subject.targetSeconds === undefined || seconds <= subject.targetSeconds;
    const rssOk = subject.targetBytes === undefined || bytes <= subject.targetBytes;
    if (!timeOk)
      misses.push(`${subject.name}: median ${fmtSec(seconds)} s > ${subject.targetSeconds} s`);
    if (!rssOk)
      misses.push(`${subject.name}: max RSS ${fmtMb(bytes)} > ${fmtMb(subject.targetBytes!)}`);
    const target = [
      subject.targetSeconds === undefined ? '' : `≤ ${subject.targetSeconds} s`,
      subject.targetBytes === undefined ? '' : `≤ ${fmtMb(subject.targetBytes)}`,
    ]
      .filter(Boolean)
      .join(', ');
    return [
      subject.name,
      fmtSec(seconds),
      fmtSec(Math.max(...samples[i]!.seconds)),
      fmtMb(bytes),
      `${(seconds / floor).toFixed(1)}×`,
      target,
      target === '' ? '' : verdict(timeOk && rssOk),
    ];
  });
  console.log(table(['command', 'median s', 'max s', 'max RSS', 'vs node', 'target', ''], rows));
  if (worker) {
    console.log('');
    console.log(await workerRss(bin, env));
  }
  console.log('');
  printMisses(misses);
}

/** Runs `node ARGS…` to its end: wall time, exit code, peak RSS (bytes), standard error. */
function timeChild(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ seconds: number; code: number | null; maxRss: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', REPORT_MAX_RSS, ...args], {
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let rss = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (rss += String(chunk)));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ seconds: (performance.now() - started) / 1000, code, maxRss: Number(rss), stderr }),
    );
  });
}

/**
 * `envdata worker` started on the bench database, left idle: its VmRSS sampled once it said
 * "worker started", the largest and the last sample. Stopped with SIGTERM afterwards.
 */
async function workerRss(bin: string, env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [bin, 'worker'], {
    env: { ...env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ENVDATA_API_KEY: 'bench-cli-key' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started = new Promise<boolean>((resolve) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('worker started')) resolve(true);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => resolve(false));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    if (!(await started)) {
      return `worker: exited before it started: ${output.trim().split('\n').at(-1) ?? ''}`;
    }
    const samples: number[] = [];
    const until = performance.now() + WORKER_SAMPLE_MS;
    while (performance.now() < until) {
      samples.push(vmRss(child.pid!));
      await new Promise((resolve) => setTimeout(resolve, WORKER_SAMPLE_EVERY_MS));
    }
    return (
      `worker steady-state RSS (idle, sampled ${WORKER_SAMPLE_MS / 1000} s after "worker started"): ` +
      `${fmtMb(samples.at(-1)!)} last, ${fmtMb(Math.max(...samples))} max`
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

/** The resident set of process `pid` now, in bytes (Linux: /proc/PID/status). */
function vmRss(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb ?? 0) * 1024;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
