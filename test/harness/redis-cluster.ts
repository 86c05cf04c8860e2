import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { RedisNode } from '../../src/config/redis-cluster-nodes.js';
import { pollUntil } from './poll-until.js';

const run = promisify(execFile);

/** Redis Cluster's bus port of a node is its port + 10000. */
const BUS_OFFSET = 10_000;

/** One key of the cluster, where it is. */
export interface ClusterKey {
  readonly key: string;
  /** Its hash slot, as the node answers `CLUSTER KEYSLOT`. */
  readonly slot: number;
  /** The port of the master that holds it. */
  readonly port: number;
}

/** A Redis Cluster of the test's own on loopback (`startRedisCluster`). */
export interface RedisCluster {
  readonly nodes: readonly RedisNode[];
  /** The value of REDIS_CLUSTER_NODES for it: `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`. */
  readonly nodesEnv: string;
  /** Every key matching `pattern`, found with SCAN on each node (each holds only its slots). */
  keys(pattern?: string): Promise<ClusterKey[]>;
  /** Kills the nodes and removes their directory. Safe to call twice. */
  close(): Promise<void>;
}

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` ports that are free with their bus ports (port + 10000), in 20000–55000 so that both
 * fit below 65536. Probed, then taken: a race with another process is possible and shows as a
 * node that exits at once (reported with its log).
 */
async function freeNodePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let tries = 0; ports.length < count && tries < 200; tries += 1) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if (ports.some((p) => Math.abs(p - port) < 2)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + BUS_OFFSET))) ports.push(port);
  }
  if (ports.length < count) throw new Error('found no free ports for a Redis Cluster');
  return ports;
}

/** A client of one node that never reconnects (the harness reads; it never waits out an outage). */
function nodeClient(port: number): Redis {
  const redis = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on('error', () => undefined);
  return redis;
}

/** `fn` on a fresh client of the node at `port`, closed afterwards. */
async function withNode<T>(port: number, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = nodeClient(port);
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/**
 * Starts a Redis Cluster of `size` masters (no replicas) on loopback: one `redis-server
 * --cluster-enabled yes` per node on free ports, in a temporary directory, joined by `redis-cli
 * --cluster create`; resolves once every node says `cluster_state:ok`. Never the shared Redis.
 * On any failure everything started is torn down before the error is thrown.
 */
export async function startRedisCluster(size = 3): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'envdata-redis-cluster-'));
  const children: ChildProcess[] = [];
  const close = async () => {
    await Promise.all(
      children.splice(0).map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ports = await freeNodePorts(size);
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--cluster-enabled',
          'yes',
          '--port',
          String(port),
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--dir',
          dir,
          '--logfile',
          join(dir, `redis-${port}.log`),
          '--save',
          '',
          '--appendonly',
          'no',
          '--bind',
          '127.0.0.1',
          '--daemonize',
          'no',
        ],
        { stdio: 'ignore' },
      );
      children.push(child);
      await pollUntil(
        async () => {
          if (child.exitCode !== null) {
            const log = await readFile(join(dir, `redis-${port}.log`), 'utf8').catch(() => '');
            throw new Error(`redis-server on port ${port} exited (${child.exitCode}):\n${log}`);
          }
          return withNode(port, (redis) => redis.ping()).then(
            () => ({ done: undefined }),
            (error: unknown) => ({ last: error }),
          );
        },
        {
          timeoutMs: 10_000,
          everyMs: 25,
          describe: (e) => `redis-server on ${port}: ${String(e)}`,
        },
      );
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await pollUntil(
      async () => {
        const states = await Promise.all(
          ports.map((port) =>
            withNode(port, async (redis) => String(await redis.cluster('INFO'))).then(
              (info) => /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown',
              () => 'no answer',
            ),
          ),
        );
        return states.every((s) => s === 'ok') ? { done: undefined } : { last: states };
      },
      {
        timeoutMs: 20_000,
        everyMs: 50,
        describe: (states) => `the Redis Cluster did not reach cluster_state:ok: ${String(states)}`,
      },
    );
    const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
    return {
      nodes,
      nodesEnv: nodes.map((n) => `${n.host}:${n.port}`).join(','),
      async keys(pattern = '*') {
        const found: ClusterKey[] = [];
        for (const port of ports) {
          await withNode(port, async (redis) => {
            let cursor = '0';
            do {
              const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
              cursor = next;
              for (const key of batch) {
                found.push({ key, slot: Number(await redis.cluster('KEYSLOT', key)), port });
              }
            } while (cursor !== '0');
          });
        }
        return found;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A Redis Cluster for the calling test file, started before its other `beforeAll` hooks that
 * come after this call and torn down after the file. `env.REDIS_CLUSTER_NODES` is filled in once
 * it runs: pass `env` to `useBackfillFixture` (which reads it when it builds its apps).
 */
export function useRedisCluster(size = 3): {
  readonly env: Record<string, string>;
  readonly cluster: RedisCluster;
} {
  const env: Record<string, string> = {};
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await startRedisCluster(size);
    env.REDIS_CLUSTER_NODES = cluster.nodesEnv;
  });
  afterAll(async () => {
    await cluster?.close();
  });
  return {
    env,
    get cluster() {
      if (!cluster) throw new Error('useRedisCluster: the cluster is used before beforeAll');
      return cluster;
    },
  };
}
