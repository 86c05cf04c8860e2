/**
 * Benchmark of the simulator: how many 48-hour history answers one simulator process serves per
 * second. This process runs the simulator (one event loop, one core); a forked child generates
 * the load with autocannon over loopback, so client work does not eat the server's core.
 *
 * Scenarios, measured in one run: 48 h pollen history, 48 h weather history (`units=si`), and
 * the trivial `GET /__admin/stats` as a baseline for what the HTTP stack alone costs. Each
 * history request asks for a different location or window (32 cities with full species data ×
 * rotating windows between 2016 and 2024), so no answer is served twice in a row.
 *
 * Usage: `npm run bench:simulator [-- --seconds 5 --connections 16]`. Bounded: every scenario
 * runs `seconds` after a 1 s warm-up, the child is killed if it overruns, and only
 * 127.0.0.1 is contacted. Exits 1 when a history scenario is under 2,000 requests/s.
 */
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { DEMO_API_KEY } from '../src/simulator/simulator-options.js';
import { startSimulator } from '../src/simulator/start-simulator.js';

const TARGET_RPS = 2_000;

interface Scenario {
  readonly name: string;
  readonly paths: readonly string[];
}

interface LoadPlan {
  readonly url: string;
  readonly key: string;
  readonly seconds: number;
  readonly connections: number;
  readonly scenarios: readonly Scenario[];
}

interface ScenarioResult {
  readonly name: string;
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly mbPerS: number;
  readonly non2xx: number;
  readonly errors: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
    },
  });
  const seconds = Math.min(60, Math.max(1, Number(values.seconds)));
  const connections = Math.min(256, Math.max(1, Number(values.connections)));

  const sim = await startSimulator({ now: '2025-01-01T00:00:00Z' });
  try {
    const pollen = historyPaths('/history/pollen/by-lat-lng', '');
    const weather = historyPaths('/weather/history/by-lat-lng', '&units=si');
    // Load the gazetteer and per-location constants before measuring.
    for (const path of [...pollen.slice(0, 64), ...weather.slice(0, 64)]) {
      const res = await fetch(`${sim.url}${path}`, { headers: { 'x-api-key': DEMO_API_KEY } });
      if (res.status !== 200) throw new Error(`warm-up ${path} answered ${res.status}`);
      await res.arrayBuffer();
    }
    sim.resetStats();

    const plan: LoadPlan = {
      url: sim.url,
      key: DEMO_API_KEY,
      seconds,
      connections,
      scenarios: [
        { name: 'pollen history 48 h', paths: pollen },
        { name: 'weather history 48 h', paths: weather },
        { name: 'baseline GET /__admin/stats', paths: ['/__admin/stats'] },
      ],
    };
    console.log(
      `Simulator benchmark: ${connections} connections, ${seconds} s per scenario (after 1 s warm-up), load from a child process, node ${process.version}`,
    );
    const results = await runChild(plan, plan.scenarios.length * (seconds + 1) + 30);

    const baseline = results.find((r) => r.name.startsWith('baseline'));
    console.log('');
    console.log(
      `${'scenario'.padEnd(30)}${'req/s'.padStart(10)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'MB/s'.padStart(8)}${'non-2xx'.padStart(9)}${'errors'.padStart(8)}${'vs baseline'.padStart(13)}`,
    );
    for (const r of results) {
      const ratio = baseline === undefined ? '' : `${((r.rps / baseline.rps) * 100).toFixed(0)} %`;
      console.log(
        `${r.name.padEnd(30)}${r.rps.toFixed(0).padStart(10)}${r.p50Ms.toFixed(1).padStart(9)}${r.p99Ms.toFixed(1).padStart(9)}${r.mbPerS.toFixed(1).padStart(8)}${String(r.non2xx).padStart(9)}${String(r.errors).padStart(8)}${ratio.padStart(13)}`,
      );
    }
    const stats = sim.stats();
    console.log('');
    console.log(
      `Simulator counted ${stats.byEndpoint['pollen-history-by-lat-lng'] ?? 0} pollen and ${stats.byEndpoint['weather-history'] ?? 0} weather history requests (warm-ups included), statuses ${JSON.stringify(stats.byStatus)}.`,
    );
    const slow = results.filter((r) => !r.name.startsWith('baseline') && r.rps < TARGET_RPS);
    const failed = results.filter((r) => r.non2xx > 0 || r.errors > 0);
    if (slow.length > 0 || failed.length > 0) {
      console.log(
        `FAIL: ${[...slow.map((r) => `${r.name} under ${TARGET_RPS} req/s`), ...failed.map((r) => `${r.name} had failures`)].join('; ')}`,
      );
      process.exitCode = 1;
    } else {
      console.log(`OK: both history scenarios at or above ${TARGET_RPS} req/s.`);
    }
  } finally {
    await sim.close();
  }
}

/**
 * Cities with full species data (Europe, North America, Australia, New Zealand): the largest
 * pollen answers, so the worst case.
 */
const LOCATIONS: readonly (readonly [number, number])[] = [
  [52.52, 13.405],
  [48.8566, 2.3522],
  [40.4168, -3.7038],
  [41.9028, 12.4964],
  [48.2082, 16.3738],
  [52.2297, 21.0122],
  [59.3293, 18.0686],
  [51.5072, -0.1276],
  [52.3676, 4.9041],
  [50.0755, 14.4378],
  [47.4979, 19.0402],
  [38.7223, -9.1393],
  [37.9838, 23.7275],
  [59.9139, 10.7522],
  [47.3769, 8.5417],
  [48.1351, 11.582],
  [40.7128, -74.006],
  [41.8781, -87.6298],
  [43.6532, -79.3832],
  [34.0522, -118.2437],
  [29.7604, -95.3698],
  [39.7392, -104.9903],
  [33.749, -84.388],
  [47.6062, -122.3321],
  [19.4326, -99.1332],
  [-27.4698, 153.0251],
  [-33.8688, 151.2093],
  [-37.8136, 144.9631],
  [-31.9523, 115.8613],
  [-12.4634, 130.8456],
  [-36.8485, 174.7633],
  [-43.532, 172.6306],
];

/** 2,000 distinct 48-hour history paths over the 32 locations and windows from 2016 to 2024. */
function historyPaths(path: string, extra: string): string[] {
  const paths: string[] = [];
  const base = Date.UTC(2016, 0, 1);
  for (let i = 0; i < 2_000; i++) {
    const [lat, lng] = LOCATIONS[i % LOCATIONS.length]!;
    const from = new Date(base + ((i * 7_919) % 3_200) * 86_400_000);
    const to = new Date(from.getTime() + 48 * 3_600_000);
    paths.push(
      `${path}?lat=${lat}&lng=${lng}&from=${serviceTime(from)}&to=${serviceTime(to)}${extra}`,
    );
  }
  return paths;
}

function serviceTime(date: Date): string {
  return encodeURIComponent(date.toISOString().slice(0, 19).replace('T', ' '));
}

function runChild(plan: LoadPlan, timeoutS: number): Promise<ScenarioResult[]> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url), ['--load'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.send(plan);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the load generator overran ${timeoutS} s and was killed`));
    }, timeoutS * 1000);
    let results: ScenarioResult[] | undefined;
    child.on('message', (message) => {
      results = message as ScenarioResult[];
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (results !== undefined) resolve(results);
      else reject(new Error(`the load generator exited with ${code} and no results`));
    });
  });
}

async function generateLoad(plan: LoadPlan): Promise<void> {
  const results: ScenarioResult[] = [];
  for (const scenario of plan.scenarios) {
    await cannon(plan, scenario, 1);
    const r = await cannon(plan, scenario, plan.seconds);
    const elapsedS = r.duration;
    results.push({
      name: scenario.name,
      requests: r.requests.total,
      seconds: elapsedS,
      rps: r.requests.total / elapsedS,
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      mbPerS: r.throughput.total / elapsedS / 1e6,
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
    });
    console.log(`  measured ${scenario.name}: ${(r.requests.total / elapsedS).toFixed(0)} req/s`);
  }
  process.send?.(results);
  process.disconnect?.();
}

function cannon(plan: LoadPlan, scenario: Scenario, seconds: number): Promise<autocannon.Result> {
  let next = 0;
  return autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: seconds,
    headers: { 'x-api-key': plan.key },
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          path: scenario.paths[next++ % scenario.paths.length] ?? '/',
        }),
      },
    ],
  });
}

if (process.argv[2] === '--load') {
  // The plan (thousands of paths) comes over the IPC channel: too long for a command line.
  process.once('message', (plan) => void generateLoad(plan as LoadPlan));
} else {
  await main();
}
