import type { JobSchedulerTemplateOptions } from 'bullmq';
import { z } from 'zod';

/**
 * The id of the nightly sync's BullMQ job scheduler, and the name of each of its firings, on the
 * sync queue. The id is fixed, so any number of schedulers upserting it leave one schedule; BullMQ
 * names each firing's job from it and the time it is due (`repeat:nightly-sync:<ms>`), so a night
 * has one firing whatever the number of schedulers.
 */
export const NIGHTLY_SYNC_SCHEDULER_ID = 'nightly-sync';

/** The name of each firing's job: the scheduler's id. */
export const NIGHTLY_SYNC_JOB_NAME = NIGHTLY_SYNC_SCHEDULER_ID;

/** What a firing carries: nothing; the sync plans from the ledger and the configuration. */
export const NIGHTLY_SYNC_JOB_PAYLOAD = z.object({}).readonly();

export type NightlySyncJobData = z.infer<typeof NIGHTLY_SYNC_JOB_PAYLOAD>;

/**
 * The template of each firing, as `Queue.upsertJobScheduler` takes it: one attempt (a sync that
 * meets an outage waits it out and goes back without using it); the last 50 failed firings stay
 * in Redis to be looked at.
 */
export function nightlySyncJob(): {
  readonly name: string;
  readonly data: NightlySyncJobData;
  readonly opts: JobSchedulerTemplateOptions;
} {
  return {
    name: NIGHTLY_SYNC_JOB_NAME,
    data: {},
    opts: { removeOnComplete: true, removeOnFail: 50 },
  };
}
