import type { Config } from '../config/config.js';
import type { RedisNode } from '../config/redis-cluster-nodes.js';
import { maskUrl } from '../warehouse/database-url.js';

/**
 * Where envdata's Redis is: one server at `url` (REDIS_URL), or, with `clusterNodes`
 * (REDIS_CLUSTER_NODES), a Redis Cluster reached through those nodes with `url`'s user,
 * password and TLS (`rediss://`). A bare string is a URL.
 */
export type RedisTarget =
  string | { readonly url: string; readonly clusterNodes?: readonly RedisNode[] };

/** The Redis of a config: REDIS_URL, or the cluster of REDIS_CLUSTER_NODES. */
export function redisTargetOf(
  config: Pick<Config, 'redisUrl' | 'redisClusterNodes'>,
): Exclude<RedisTarget, string> {
  return { url: config.redisUrl, clusterNodes: config.redisClusterNodes };
}

/** The nodes of a cluster target; `undefined` for one Redis. */
export function clusterNodesOf(target: RedisTarget): readonly RedisNode[] | undefined {
  if (typeof target === 'string') return undefined;
  return target.clusterNodes && target.clusterNodes.length > 0 ? target.clusterNodes : undefined;
}

/** The URL of a target (for a cluster: where its credentials and TLS come from). */
export function urlOf(target: RedisTarget): string {
  return typeof target === 'string' ? target : target.url;
}

/**
 * Where the target is, never with a password: the masked URL, or the cluster's nodes as
 * REDIS_CLUSTER_NODES lists them (`10.0.0.1:7000,10.0.0.2:7000`).
 */
export function redisAddressOf(target: RedisTarget): string {
  const nodes = clusterNodesOf(target);
  return nodes ? nodes.map(formatNode).join(',') : maskUrl(urlOf(target));
}

/**
 * The target as the operator set it, for messages, never with a password:
 * `REDIS_URL redis://***@host:6379` or `REDIS_CLUSTER_NODES 10.0.0.1:7000,10.0.0.2:7000`.
 */
export function describeRedisTarget(target: RedisTarget): string {
  const variable = clusterNodesOf(target) ? 'REDIS_CLUSTER_NODES' : 'REDIS_URL';
  return `${variable} ${redisAddressOf(target)}`;
}

/** `host:port`, IPv6 hosts in brackets. */
export function formatNode(node: RedisNode): string {
  return node.host.includes(':') ? `[${node.host}]:${node.port}` : `${node.host}:${node.port}`;
}
