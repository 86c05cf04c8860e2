import { UnrecoverableError, type Job } from 'bullmq';
import type { z } from 'zod';
import { payloadProblem } from '../../jobs/payload-problem.js';

/**
 * Checks a job's payload against its schema (`jobs/`) before a processor reads it: the edge where
 * a job queued by an older release, or added by hand, meets the code. One that does not hold
 * fails at once with `UnrecoverableError` (BullMQ retries it no more), its message naming the job
 * and each failing field; one that holds is its job kind's from here on, checked, not cast.
 */
export function assertJobPayload<Data>(
  job: Job<unknown>,
  schema: z.ZodType<Data>,
): asserts job is Job<Data> {
  const problem = payloadProblem(job, schema);
  if (problem !== undefined) throw new UnrecoverableError(problem);
}
