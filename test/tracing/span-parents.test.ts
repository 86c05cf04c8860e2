import { DelayedError } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  NO_SPAN,
  activeTraceParent,
  inSpan,
  inSpanSync,
  shutdownTracing,
  startTracing,
  traceIdOf,
} from '../../src/tracing/tracing.js';
import { startOtlpReceiver, type OtlpReceiver } from '../harness/otlp-receiver.js';

/** A turn of the event loop: what breaks a context carried by the async stack. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
afterEach(async () => {
  await shutdownTracing();
});

/** The variables set for a test: the SDK's parts read the process's own. */
let variables: string[] = [];
afterEach(() => {
  for (const name of variables) delete process.env[name];
  variables = [];
});

/** Tracing started in this process, exporting to the receiver, with `sampler` (default: all). */
async function trace(sampler: Record<string, string> = {}) {
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    ...sampler,
  };
  Object.assign(process.env, env);
  variables = Object.keys(env);
  expect(await startTracing('worker', process.env)).toBe(true);
}

/** The spans received of the trace whose root is named `root`. */
function traceOf(root: string) {
  const spans = receiver.spans();
  const top = spans.find((s) => s.name === root);
  expect(top, root).toBeDefined();
  return spans.filter((s) => s.traceId === top!.traceId);
}

describe('spans carried by hand (no AsyncLocalStorage)', () => {
  it('puts a span under the parent it is given, after awaits, and under none without one', async () => {
    await trace();
    let traceId: string | null = null;
    await inSpan('job', async (job) => {
      await turn();
      traceId = traceIdOf(job.scope);
      await inSpan('call', turn, { parent: job.scope });
      inSpanSync('parse', () => undefined, { parent: job.scope });
      // The synchronous part of a span's work sees it as the active one: what a processor takes.
      await inSpan(
        'step',
        async (step) => {
          const active = activeTraceParent();
          await turn();
          await inSpan('inner', turn, { parent: active });
          expect(step.scope).toBeDefined();
        },
        { parent: job.scope },
      );
      // After an await, nothing is active: a span given no parent is a trace of its own.
      await inSpan('detached', turn);
    });
    await shutdownTracing();
    const spans = traceOf('job');
    const job = spans.find((s) => s.name === 'job')!;
    expect(job.traceId).toBe(traceId);
    const parentOf = (name: string) => spans.find((s) => s.name === name)?.parentSpanId;
    expect(parentOf('call')).toBe(job.spanId);
    expect(parentOf('parse')).toBe(job.spanId);
    expect(parentOf('step')).toBe(job.spanId);
    expect(parentOf('inner')).toBe(spans.find((s) => s.name === 'step')!.spanId);
    expect(spans.map((s) => s.name)).not.toContain('detached');
    expect(receiver.spans().find((s) => s.name === 'detached')?.parentSpanId).toBeUndefined();
  });

  it('makes no span under a trace not sampled, however deep', async () => {
    await trace({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    let inner = NO_SPAN;
    await inSpan('unsampled-job', async (job) => {
      expect(job.recording).toBe(false);
      expect(job.scope).toBeDefined();
      expect(traceIdOf(job.scope)).toBeNull();
      await turn();
      await inSpan(
        'unsampled-child',
        async (child) => {
          inner = child;
          await inSpan('unsampled-grandchild', turn, { parent: child.scope });
        },
        { parent: job.scope },
      );
    });
    await shutdownTracing();
    expect(inner.recording).toBe(false);
    expect(receiver.spans().map((s) => s.name)).not.toContain('unsampled-child');
    expect(receiver.spans().map((s) => s.name)).not.toContain('unsampled-grandchild');
  });

  it("ends a span ERROR for a failure, not for BullMQ's DelayedError that moves a job", async () => {
    await trace();
    await expect(
      inSpan('moved', async () => {
        throw new DelayedError();
      }),
    ).rejects.toBeInstanceOf(DelayedError);
    await expect(
      inSpan('failed', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await shutdownTracing();
    const moved = receiver.spans().find((s) => s.name === 'moved')!;
    expect(moved.statusCode).not.toBe(2);
    expect(moved.attributes['envdata.job.moved']).toBe('DelayedError');
    expect(receiver.spans().find((s) => s.name === 'failed')!.statusCode).toBe(2);
  });
});
