import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { backfillRange, useBackfillFixture } from '../harness/backfill-fixture.js';
import {
  startOtlpReceiver,
  type OtlpReceiver,
  type ReceivedSpan,
} from '../harness/otlp-receiver.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useEnvdataProcesses } from '../harness/start-envdata.js';
import { waitForRun } from '../harness/wait-for-run.js';
import { serveConsole } from '../console/serve-console.js';

const fx = useBackfillFixture();
const startProcess = useEnvdataProcesses();
/** The secret of a webhook, as Slack's are in their path: never in a span. */
const WEBHOOK_SECRET = 'T0TRACE/B0TRACE/w3bh00ks3cr3tTRACE';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** The environment of every envdata process of this file: traces to the receiver. */
function tracedEnv(extra: Record<string, string> = {}): Record<string, string> {
  return fx.cliEnv({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    // One attempt: the chunk the service fails once fails for good.
    ENVDATA_MAX_ATTEMPTS: '1',
    ENVDATA_NOTIFY_URL: `http://127.0.0.1:9/hook/${WEBHOOK_SECRET}`,
    ...extra,
  });
}

const PRODUCER = 4;
const CONSUMER = 5;
const CLIENT = 3;

describe('OpenTelemetry traces of a backfill worked by two worker processes', () => {
  it('gives every chunk one trace from its enqueue to its ledger outcome, across processes, linked to its run', async () => {
    // 2 datasets × 2 locations × 3 windows of 48 h = 12 chunks; the first weather call fails.
    fx.simulator.addFaultScripts('weather:error=503x1');
    const range = backfillRange('2024-06-02', '2024-06-08');
    const backfill = await runEnvdata(
      ['backfill', '--dataset', 'all', '--from', '2024-06-02', '--to', '2024-06-08'],
      tracedEnv(),
    );
    expect(backfill.stderr).toBe('');
    expect(backfill.code).toBe(0);
    const runId = Number(/^run (\d+):/m.exec(backfill.stdout)?.[1]);
    expect(runId).toBeGreaterThan(0);

    const workers = [0, 1].map(() =>
      startProcess(['worker'], tracedEnv({ ENVDATA_WORKER_CONCURRENCY: '2' })),
    );
    const progress = await waitForRun(fx.app.db, runId, { timeoutMs: 60_000 });
    expect(progress).toMatchObject({ status: 'failed', done: 11, failed: 1 });
    // Stopped as a person would (SIGTERM): each exports its last spans on the way out.
    for (const worker of workers) worker.child.kill('SIGTERM');
    for (const worker of workers) expect((await worker.exited).code).toBe(0);
    const workerPids = new Set(workers.map((w) => w.child.pid));

    const spans = receiver.spans();
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const inTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId);

    // The run's trace: its plan, whose traceparent the run's row keeps.
    const plans = spans.filter(
      (s) => s.name === 'envdata.run.plan' && s.attributes['envdata.run.id'] === runId,
    );
    expect(plans).toHaveLength(1);
    const plan = plans[0]!;
    expect(plan.service).toBe('envdata-backfill');
    const { rows: runRows } = await sql<{ traceparent: string | null }>`
      select traceparent from envdata.run where run_id = ${runId}`.execute(fx.app.db);
    expect(runRows[0]!.traceparent).toBe(`00-${plan.traceId}-${plan.spanId}-01`);

    const { rows: chunks } = await sql<{
      chunk_id: number;
      status: string;
      trace_id: string | null;
    }>`
      select chunk_id, status, trace_id from envdata.chunk where run_id = ${runId}
      order by chunk_id`.execute(fx.app.db);
    expect(chunks).toHaveLength(range.datasets.length * 2 * 3);

    for (const chunk of chunks) {
      const label = `chunk ${chunk.chunk_id}`;
      // Its enqueue: a PRODUCER span at the root of its own trace, linked to the run's plan.
      const enqueues = spans.filter(
        (s) =>
          s.name === 'envdata.chunk.enqueue' && s.attributes['envdata.chunk.id'] === chunk.chunk_id,
      );
      expect(enqueues, label).toHaveLength(1);
      const enqueue = enqueues[0]!;
      expect(enqueue.kind, label).toBe(PRODUCER);
      expect(enqueue.parentSpanId, label).toBeUndefined();
      expect(enqueue.service, label).toBe('envdata-backfill');
      expect(enqueue.links, label).toEqual([{ traceId: plan.traceId, spanId: plan.spanId }]);

      // BullMQ's `process` span, in a worker process, the child of that PRODUCER span: one
      // trace per chunk, and only one trace has its job processed.
      const processed = spans.filter(
        (s) => s.kind === CONSUMER && s.attributes['bullmq.job.id'] === `chunk-${chunk.chunk_id}`,
      );
      expect(processed, label).toHaveLength(1);
      const process = processed[0]!;
      expect(process.traceId, label).toBe(enqueue.traceId);
      expect(process.parentSpanId, label).toBe(enqueue.spanId);
      expect(process.service, label).toBe('envdata-worker');
      expect(workerPids.has(process.pid), label).toBe(true);

      // Our spans, children of `process`: every step of the chunk.
      const trace = inTrace(enqueue.traceId);
      const child = (name: string | RegExp) => {
        const found = trace.filter((s) =>
          typeof name === 'string' ? s.name === name : name.test(s.name),
        );
        expect(found, `${label}: ${String(name)}`).toHaveLength(1);
        expect(found[0]!.parentSpanId, `${label}: ${String(name)}`).toBe(process.spanId);
        return found[0]!;
      };
      const wait = child('envdata.queue.wait');
      expect(wait.startNs, label).toBeLessThan(process.startNs);
      expect(wait.startNs, label).toBeGreaterThanOrEqual(enqueue.startNs - 1_000_000n);
      const admission = child('envdata.admission.wait');
      expect(admission.attributes['envdata.admission.result'], label).toBe('permit');
      const http = child(/^envdata\.http GET \/(history\/pollen|weather\/history)\//);
      expect(http.kind, label).toBe(CLIENT);
      const outcome = child('envdata.ledger.outcome');
      expect(chunk.trace_id, label).toBe(enqueue.traceId);

      if (chunk.status === 'failed') {
        expect(http.attributes['http.response.status_code'], label).toBe(503);
        expect(outcome.attributes['envdata.chunk.step'], label).toBe('fail');
        continue;
      }
      expect(http.attributes['http.response.status_code'], label).toBe(200);
      expect(http.attributes['http.response.body.size'], label).toBeGreaterThan(0);
      expect(child('envdata.parse').attributes['envdata.parse.records'], label).toBeGreaterThan(0);
      child('envdata.normalise');
      const landing = child('envdata.landing');
      const stage = trace.filter((s) => s.name === 'envdata.stage');
      expect(
        stage.map((s) => s.parentSpanId),
        label,
      ).toEqual([landing.spanId]);
      expect(outcome.attributes['envdata.chunk.step'], label).toBe('landed');
      // Its batch's transaction: a trace of its own, linked both ways.
      expect(landing.links, label).toHaveLength(1);
      const batch = byId.get(landing.links[0]!.spanId);
      expect(batch?.name, label).toBe('envdata.landing.transaction');
      expect(batch!.links, label).toContainEqual({
        traceId: landing.traceId,
        spanId: landing.spanId,
      });
      expect(batch!.attributes['envdata.landing.statements'], label).toContain(
        'envdata_landing_holes',
      );
      expect(landing.attributes['envdata.landing.batch_size'], label).toBe(
        batch!.attributes['envdata.landing.batch_size'],
      );
    }

    // Every span of a chunk's trace hangs off the trace's PRODUCER span.
    const chunkTraces = new Set(
      spans.filter((s) => s.name === 'envdata.chunk.enqueue').map((s) => s.traceId),
    );
    for (const span of spans.filter((s) => chunkTraces.has(s.traceId))) {
      let at: ReceivedSpan | undefined = span;
      while (at?.parentSpanId !== undefined) at = byId.get(at.parentSpanId);
      expect(at?.name, `${span.name} in ${span.traceId}`).toBe('envdata.chunk.enqueue');
    }

    // The failed chunk: its trace id in `status RUN --json`, and that trace at the receiver.
    const status = await runCliInProcess(['status', String(runId), '--json'], fx.cliEnv());
    const report = JSON.parse(status.stdout) as {
      failedChunks: { code: string; examples: { chunkId: number; traceId: string | null }[] }[];
    };
    expect(report.failedChunks).toHaveLength(1);
    const failed = report.failedChunks[0]!.examples[0]!;
    expect(failed.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(inTrace(failed.traceId!).map((s) => s.name)).toContain('envdata.ledger.outcome');
    // Its worker's log line says so with the trace id, written after awaits (a child logger).
    const lines = workers
      .flatMap((w) => `${w.stdout()}\n${w.stderr()}`.split('\n'))
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; chunkId?: number; trace_id?: string });
    const failedLines = lines.filter(
      (l) => l.msg === 'chunk failed' && l.chunkId === failed.chunkId,
    );
    expect(failedLines).toHaveLength(1);
    expect(failedLines[0]!.trace_id).toBe(failed.traceId);
    const text = await runCliInProcess(['status', String(runId)], fx.cliEnv());
    expect(text.stdout).toContain(
      `(chunk ${failed.chunkId}, 1 attempt(s)) trace ${failed.traceId}`,
    );

    // The console links it to its trace in the viewer (ENVDATA_TRACE_URL).
    const served = await serveConsole(fx, {
      env: { ENVDATA_TRACE_URL: 'http://jaeger.example:16686/trace/{traceId}' },
    });
    try {
      const response = await fetch(`${served.url}/api/runs/${runId}`);
      const page = (await response.json()) as {
        failures: { examples: { chunkId: number; traceUrl: string | null }[] }[];
      };
      expect(page.failures[0]!.examples).toEqual([
        expect.objectContaining({
          chunkId: failed.chunkId,
          traceUrl: `http://jaeger.example:16686/trace/${failed.traceId}`,
        }),
      ]);
    } finally {
      await served.stop();
    }

    // No secret in anything exported: the key, the webhook's secret.
    const payloads = receiver.payloads().join('\n');
    expect(payloads.length).toBeGreaterThan(0);
    expect(payloads).not.toContain(DEMO_API_KEY);
    expect(payloads).not.toContain(WEBHOOK_SECRET);
    expect(payloads).not.toContain('w3bh00ks3cr3t');
  });
});
