import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logging/create-logger.js';

export interface CapturedLogger {
  readonly logger: Logger;
  /** Every serialized line written so far. */
  readonly lines: string[];
}

/** A JSON logger at `trace` that keeps its lines in memory, secrets scrubbed as in production. */
export function captureLogger(secrets: readonly string[] = []): CapturedLogger {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  const logger = createLogger({ level: 'trace', format: 'json', secrets, destination });
  return { logger, lines };
}
