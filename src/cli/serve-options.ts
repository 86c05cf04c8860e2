import { parseWholeNumber } from './parse-cli-values.js';
import { usageError } from './usage-error.js';

/** Where `envdata serve` listens without `--host`: loopback. */
export const DEFAULT_SERVE_HOST = '127.0.0.1';
/** Where `envdata serve` listens without `--port`. */
export const DEFAULT_SERVE_PORT = 8080;

/** Where `envdata serve` listens, checked. */
export interface ServeOptions {
  readonly host: string;
  readonly port: number;
}

/** `--host` and `--port` checked, before anything is opened. */
export function parseServeOptions(options: { host?: string; port?: string }): ServeOptions {
  const host = (options.host ?? DEFAULT_SERVE_HOST).trim();
  if (host === '' || /[\s/]/.test(host)) {
    throw usageError(
      `--host must be an interface address such as 127.0.0.1 or 0.0.0.0 (got "${options.host}")`,
    );
  }
  const port =
    options.port === undefined
      ? DEFAULT_SERVE_PORT
      : parseWholeNumber('--port', options.port, { min: 0, max: 65_535 });
  return { host, port };
}
