import { EnvdataError } from '../errors/envdata-error.js';
import { coerceError } from '../errors/coerce-error.js';
import { clusterNodesOf, describeRedisTarget, type RedisTarget } from './redis-target.js';

/** The one-line operator message for a Redis (or Redis Cluster) that does not answer. */
export function redisUnavailable(target: RedisTarget, cause: unknown): EnvdataError {
  const message = clusterNodesOf(target)
    ? `${describeRedisTarget(target)}: the Redis Cluster does not answer (${coerceError(cause).message}): start its nodes, check \`redis-cli -c -h <host> -p <port> cluster info\` says cluster_state:ok, or fix REDIS_CLUSTER_NODES`
    : `${describeRedisTarget(target)} does not answer: start Redis (\`docker compose up -d redis\`, or \`redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no\`) or set REDIS_URL`;
  return new EnvdataError('REDIS_UNAVAILABLE', message, { retryable: true, cause });
}
