import { ErrorCode } from 'bullmq';

/**
 * Whether `error` is BullMQ saying that a job it was finishing is gone from the queue: its key
 * (`Missing key for job …`, Redis restarted empty or was flushed) or its lock (`Missing lock …`,
 * the lock expired and stalled recovery handed the job to another worker; `Lock mismatch …`,
 * another worker holds it now, as when the job was dispatched again after Redis came back empty). Neither loses work:
 * the chunk's state is in the ledger, which lands a chunk once and dispatches what is unfinished
 * again. Read from the error's numeric `code` (BullMQ's `ErrorCode`), never its text.
 */
export function isLostJob(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return (
    code === ErrorCode.JobNotExist ||
    code === ErrorCode.JobLockNotExist ||
    code === ErrorCode.JobLockMismatch
  );
}
