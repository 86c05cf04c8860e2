import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Location } from '../../src/locations/location.js';
import { createFeeder } from '../../src/dispatch/create-feeder.js';
import { insertLocation } from '../../src/locations/insert-location.js';
import {
  inSpan,
  inSpanSync,
  producerSpans,
  recordSpan,
  shutdownTracing,
  startTracing,
} from '../../src/tracing/tracing.js';
import { IngestWorker } from '../../src/worker/ingest-worker.js';
import { benchApp, timedBackfill, type BenchTarget, type TimedBackfill } from './bench-app.js';
import { rate } from './report.js';
import { startSimulatorProcess } from './simulator-process.js';

const DAY_MS = 86_400_000;

/** Tracing off, on at 100 % sampling, on at 10 % (parentbased_traceidratio 0.1). */
export const TRACING_MODES = ['off', '100 %', '10 %'] as const;
export type TracingMode = (typeof TRACING_MODES)[number];

/** One backfill of part 5, with its mode. */
export interface TracedRun extends TimedBackfill {
  readonly mode: TracingMode;
  /** The round it ran in: the three modes of a round run one after another. */
  readonly round: number;
}

export interface TracingCost {
  readonly runs: readonly TracedRun[];
  /** CPU µs per chunk of its spans alone (made and exported, no other work), by mode. */
  readonly spanWorkUs: ReadonlyMap<TracingMode, number>;
  /** Spans the loopback receiver was sent, and what it received in bytes, over the counted runs. */
  readonly spansExported: number;
  readonly bytesExported: number;
}

/**
 * Part 5: what tracing costs a backfill (`src/tracing/`). `rounds` rounds of three backfills
 * of pollen and weather of `locations` (48 h windows, one worker of `concurrency` slots, no rate
 * limit), one per mode, alternating (the order rotates each round, so that no mode always
 * follows the same one), after one not counted (warming up); each backfill covers the same
 * `days` at fresh copies of the locations (the same cities, a few km apart), so that every run
 * does the same work on hours not landed before. Traced runs export
 * over OTLP/HTTP to a receiver on loopback in a process of its own (it decodes and counts the
 * spans), with the SDK's standard settings but the endpoint and the sampler.
 */
export async function measureTracingCost(
  target: BenchTarget,
  locations: readonly Location[],
  options: { readonly days: number; readonly concurrency: number; readonly rounds: number },
): Promise<TracingCost> {
  const simulator = await startSimulatorProcess();
  const receiver = await startSpanSink();
  const runs: TracedRun[] = [];
  try {
    const to = new Date(Date.UTC(2024, 6, 1));
    const window = { from: new Date(to.getTime() - options.days * DAY_MS), to };
    const settings = {
      simulatorUrl: simulator.url,
      receiverUrl: receiver.url,
      concurrency: options.concurrency,
    };
    let copies = 0;
    const freshLocations = () => copiesOf(target, locations, (copies += 1));
    // A first backfill in each mode, not counted: what is loaded, compiled and cached once (the
    // SDK's modules, their code made hot) is not the first counted run's of that mode.
    for (const mode of TRACING_MODES) {
      await tracedBackfill(target, await freshLocations(), window, mode, settings);
    }
    const warming = await receiver.counts();
    for (let round = 0; round < options.rounds; round += 1) {
      for (let k = 0; k < TRACING_MODES.length; k += 1) {
        const mode = TRACING_MODES[(k + round) % TRACING_MODES.length]!;
        const run = await tracedBackfill(target, await freshLocations(), window, mode, settings);
        runs.push({ ...run, mode, round });
      }
    }
    const counted = await receiver.counts();
    const spans = counted.spans - warming.spans;
    const bytes = counted.bytes - warming.bytes;
    const spanWorkUs = new Map<TracingMode, number>();
    for (const mode of TRACING_MODES) spanWorkUs.set(mode, await spanWork(mode, receiver.url));
    return { runs, spanWorkUs, spansExported: spans, bytesExported: bytes };
  } finally {
    await receiver.stop();
    await simulator.stop();
  }
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** rows/s of each mode: the median of its runs. */
export function rowsPerSecondByMode(cost: TracingCost): Map<TracingMode, number> {
  const out = new Map<TracingMode, number>();
  for (const mode of TRACING_MODES) {
    out.set(
      mode,
      median(cost.runs.filter((r) => r.mode === mode).map((r) => rate(r.rows, r.seconds))),
    );
  }
  return out;
}

/**
 * rows/s of each mode against off's in the same round, the median over the rounds: a paired
 * comparison. The three runs of a round follow one another, so what drifts across a bench (the
 * warehouse growing, Postgres's checkpoints and vacuums, the machine's other load) weighs on
 * each mode's run of a round alike; the medians of all runs (`rowsPerSecondByMode`) compare runs
 * minutes apart.
 */
export function pairedRatioByMode(cost: TracingCost): Map<TracingMode, number> {
  const out = new Map<TracingMode, number>();
  for (const mode of TRACING_MODES) {
    const ratios: number[] = [];
    for (const run of cost.runs.filter((r) => r.mode === mode)) {
      const off = cost.runs.find((r) => r.mode === 'off' && r.round === run.round);
      if (off) ratios.push(rate(run.rows, run.seconds) / rate(off.rows, off.seconds));
    }
    out.set(mode, median(ratios));
  }
  return out;
}

async function tracedBackfill(
  target: BenchTarget,
  locations: readonly Location[],
  window: { readonly from: Date; readonly to: Date },
  mode: TracingMode,
  options: { simulatorUrl: string; receiverUrl: string; concurrency: number },
): Promise<TimedBackfill> {
  // The SDK reads the standard variables of the process itself: set for this run only.
  const vars = tracingVariables(mode, options.receiverUrl);
  Object.assign(process.env, vars);
  try {
    if (mode !== 'off' && !(await startTracing('worker', process.env))) {
      throw new Error('tracing did not start');
    }
    const app = benchApp(target, {
      ENVDATA_BASE_URL: options.simulatorUrl,
      ENVDATA_RATE_LIMIT: 'off',
    });
    let worker: IngestWorker | undefined;
    try {
      worker = IngestWorker.start(app, { concurrency: options.concurrency });
      const feeder = createFeeder(app);
      await worker.worker.waitUntilReady();
      await feeder.topUp();
      const run = await timedBackfill(app, locations, window, () => feeder.topUp());
      await worker.close();
      return run;
    } finally {
      await worker?.close();
      await app.close();
    }
  } finally {
    await shutdownTracing();
    for (const name of Object.keys(vars)) delete process.env[name];
  }
}

/**
 * An OTLP/HTTP receiver in a process of its own on loopback that counts the spans of each JSON
 * export: by their one `startTimeUnixNano` each (events have `timeUnixNano`, links no time), not
 * by parsing, so that it takes as little of the machine's two cores as it can; a collector is
 * not the worker's cost.
 */
async function startSpanSink(): Promise<{
  readonly url: string;
  counts(): Promise<{ spans: number; bytes: number }>;
  stop(): Promise<void>;
}> {
  const code = `
    const http = require('node:http');
    const START = Buffer.from('"startTimeUnixNano"');
    let spans = 0, bytes = 0;
    const server = http.createServer((req, res) => {
      const parts = [];
      req.on('data', (p) => parts.push(p));
      req.on('end', () => {
        const body = Buffer.concat(parts);
        if (req.url === '/counts') return res.end(JSON.stringify({ spans, bytes }));
        bytes += body.length;
        for (let at = body.indexOf(START); at !== -1; at = body.indexOf(START, at + START.length))
          spans += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('listening at http://127.0.0.1:' + server.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  const url = /listening at (http:\/\/\S+)/.exec(line)![1]!;
  return {
    url,
    async counts() {
      const response = await fetch(`${url}/counts`, { method: 'POST' });
      return (await response.json()) as { spans: number; bytes: number };
    },
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** `locations` registered again, `copy` × 0.05° away and named so: fresh places, the same climates. */
async function copiesOf(
  target: BenchTarget,
  locations: readonly Location[],
  copy: number,
): Promise<Location[]> {
  const app = benchApp(target);
  try {
    const copies: Location[] = [];
    for (const l of locations) {
      copies.push(
        await insertLocation(app.db, {
          name: `${l.name} (traces ${copy})`,
          lat: l.lat + copy * 0.05,
          lng: l.lng + copy * 0.05,
          countryCode: l.countryCode,
          registeredBy: 'coordinates',
        }),
      );
    }
    return copies;
  } finally {
    await app.close();
  }
}

/**
 * CPU µs per chunk of a chunk's spans alone, as the worker makes them (the same names, kinds,
 * nesting and attributes; BullMQ's `process` made here too), exported to
 * `receiverUrl`: what tracing adds to each chunk, without the noise of a whole backfill.
 */
async function spanWork(mode: TracingMode, receiverUrl: string): Promise<number> {
  const vars = tracingVariables(mode, receiverUrl);
  Object.assign(process.env, vars);
  try {
    if (mode !== 'off') await startTracing('worker', process.env);
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
    const chunk = async (i: number): Promise<void> => {
      const enqueue = producerSpans('envdata.chunk.enqueue', [
        { attributes: { 'envdata.chunk.id': i, 'envdata.run.id': 1 } },
      ]);
      enqueue.end();
      await inSpan('process ingest', async (process) => {
        const parent = process.scope;
        recordSpan('envdata.queue.wait', {
          parent,
          startTime: new Date(Date.now() - 5),
          attributes: { 'envdata.chunk.id': i },
        });
        await inSpan(
          'envdata.admission.wait',
          async (span) => {
            await tick();
            span.setAttributes({ 'envdata.admission.result': 'permit' });
          },
          { parent },
        );
        await inSpan(
          'envdata.http GET /history/pollen/by-lat-lng',
          async (span) => {
            await tick();
            span.setAttributes({
              'http.response.status_code': 200,
              'http.response.body.size': 9e4,
            });
          },
          {
            kind: 'client',
            parent,
            attributes: { 'http.request.method': 'GET', 'url.path': '/h' },
          },
        );
        inSpanSync('envdata.parse', (span) => span.setAttributes({ 'envdata.parse.records': 48 }), {
          parent,
        });
        inSpanSync(
          'envdata.normalise',
          (span) => span.setAttributes({ 'envdata.normalise.rows': 9 }),
          { parent },
        );
        await inSpan(
          'envdata.landing',
          async (span) => {
            await inSpan('envdata.stage', tick, { parent: span.scope });
            span.setAttributes({
              'envdata.landing.batch_size': 8,
              'envdata.landing.state': 'done',
            });
          },
          { parent },
        );
        await inSpan(
          'envdata.ledger.outcome',
          async (span) => {
            await tick();
            span.setAttributes({ 'envdata.chunk.result': 'landed' });
          },
          { parent },
        );
      });
    };
    for (let i = 0; i < 2_000; i += 1) await chunk(i);
    const cpu0 = process.cpuUsage();
    const chunks = 20_000;
    for (let i = 0; i < chunks; i += 1) await chunk(i);
    await shutdownTracing();
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / chunks;
  } finally {
    await shutdownTracing();
    for (const name of Object.keys(vars)) delete process.env[name];
  }
}

/** The standard variables of `mode`, exporting to `receiverUrl`. */
function tracingVariables(mode: TracingMode, receiverUrl: string): Record<string, string> {
  if (mode === 'off') return {};
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
    ...(mode === '10 %' && {
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }),
  };
}
