import { coerceError } from '../errors/coerce-error.js';
import { ServiceError } from '../service/service-error.js';

/** What a job whose pacing was cut short rethrows: ABORTED when the worker is stopping. */
export function pacingError(thrown: unknown, stopping: AbortSignal | undefined): Error {
  if (!stopping?.aborted) return coerceError(thrown);
  return new ServiceError(
    'ABORTED',
    'the worker is stopping: the call waiting for its slot of the rate limit was not made; the work goes back to the queue',
    { endpoint: undefined, retryable: true },
  );
}
