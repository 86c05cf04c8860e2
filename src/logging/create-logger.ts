import { pino, type DestinationStream, type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { LogFormat, LogLevel } from '../config/config.js';
import { logTraceMixin } from '../tracing/tracing.js';

export type { Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log object. */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  '*.*.headers["x-api-key"]',
  '["x-api-key"]',
  '*["x-api-key"]',
];

export interface CreateLoggerOptions {
  level: LogLevel;
  format: LogFormat;
  /**
   * Literal values that must never reach a log line (the API key). They are replaced in the
   * serialised line itself, so they are caught in messages, errors and stacks too, not only at
   * the redacted paths.
   */
  secrets?: readonly (string | undefined)[];
  /**
   * Where lines go; default standard error, so standard output stays for command results. With
   * `format: 'pretty'` the readable text is written there.
   */
  destination?: DestinationStream;
  /** Colours in pretty lines. Default `true`; `NO_COLOR` turns them off (`config.log.color`). */
  color?: boolean;
}

/**
 * The pino root logger of a process: JSON by default, readable on a terminal, API key redacted;
 * with tracing on (started before, `startTracing`), each line logged inside a span carries its
 * `trace_id` and `span_id`.
 * Give each component a child: `logger.child({ component: 'worker', runId })`.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter(
    (s): s is string => typeof s === 'string' && s.length >= 4,
  );
  const target = options.destination ?? pino.destination({ dest: 2, sync: true });
  const destination = options.format === 'pretty' ? prettyLines(target, options.color) : target;
  // While tracing runs: the active span's `trace_id` and `span_id` on every line.
  const mixin = logTraceMixin();
  return pino(
    {
      level: options.level,
      ...(mixin && { mixin }),
      base: { pid: process.pid },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      hooks:
        secrets.length === 0 ? {} : { streamWrite: (line: string) => scrubSecrets(line, secrets) },
    },
    destination,
  );
}

/**
 * Each JSON line made readable, written synchronously in the order logged (pino-pretty's
 * transport would pipe them through a stream, behind whatever else the process writes).
 */
function prettyLines(target: DestinationStream, color = true): DestinationStream {
  const prettify = prettyFactory({ colorize: color, translateTime: 'SYS:HH:MM:ss.l' });
  return { write: (line: string) => target.write(prettify(line)) };
}

/** Replaces every occurrence of each secret (raw or JSON-escaped) with `[redacted]`. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    out = out.split(secret).join('[redacted]');
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.split(escaped).join('[redacted]');
  }
  return out;
}
