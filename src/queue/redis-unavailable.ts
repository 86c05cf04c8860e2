import { EnvdataError } from '../errors/envdata-error.js';
import { maskUrl } from '../warehouse/database-url.js';

/** The one-line operator message for a Redis that does not answer. */
export function redisUnavailable(url: string, cause: unknown): EnvdataError {
  return new EnvdataError(
    'REDIS_UNAVAILABLE',
    `REDIS_URL ${maskUrl(url)} does not answer: start Redis (\`docker compose up -d redis\`, or \`redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no\`) or set REDIS_URL`,
    { retryable: true, cause },
  );
}
