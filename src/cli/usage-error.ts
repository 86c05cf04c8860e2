import { EnvdataError } from '../errors/envdata-error.js';

/** A command-line mistake: printed with a hint, exit code 2, nothing touched. */
export function usageError(message: string): EnvdataError {
  return new EnvdataError('USAGE', message);
}
