import { z } from 'zod';

/** One node of a Redis Cluster that envdata first connects to (REDIS_CLUSTER_NODES). */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

/** A host name or IPv4 address, or an IPv6 address in brackets (`[::1]`). */
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/;

/**
 * Parses `host:port,host:port,…` (spaces around entries allowed): the nodes a Redis Cluster is
 * first reached at; ioredis learns the rest of the cluster from any of them. Returns the nodes,
 * or a message naming the first bad entry.
 *
 * @example parseRedisClusterNodes('10.0.0.1:7000, 10.0.0.2:7000') // two nodes
 */
export function parseRedisClusterNodes(text: string): RedisNode[] | string {
  const nodes: RedisNode[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(',')) {
    const entry = raw.trim();
    const colon = entry.lastIndexOf(':');
    const host = colon < 0 ? '' : entry.slice(0, colon);
    const port = colon < 0 ? '' : entry.slice(colon + 1);
    if (entry === '' || !HOST.test(host) || !/^\d{1,5}$/.test(port)) {
      return `"${entry}" is not host:port (list the cluster's nodes as 10.0.0.1:7000,10.0.0.2:7000)`;
    }
    const portNumber = Number(port);
    if (portNumber < 1 || portNumber > 65_535) {
      return `"${entry}" has port ${port}: a port is 1 to 65535`;
    }
    const node = { host: host.replace(/^\[(.*)\]$/, '$1'), port: portNumber };
    const key = `${node.host}:${node.port}`;
    if (seen.has(key)) return `"${entry}" is listed twice`;
    seen.add(key);
    nodes.push(node);
  }
  return nodes;
}

export const redisClusterNodesSchema = z.string().transform((text, ctx) => {
  const parsed = parseRedisClusterNodes(text);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return parsed;
});
