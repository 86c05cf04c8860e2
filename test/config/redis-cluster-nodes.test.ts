import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { parseRedisClusterNodes } from '../../src/config/redis-cluster-nodes.js';
import { credentialsOf } from '../../src/queue/create-redis.js';
import { describeRedisTarget, redisTargetOf } from '../../src/queue/redis-target.js';
import { configError } from '../harness/config-error.js';
import { runEnvdata } from '../harness/run-envdata.js';

describe('REDIS_CLUSTER_NODES', () => {
  it('is off by default: one Redis at REDIS_URL', () => {
    expect(loadConfig({}).redisClusterNodes).toEqual([]);
    expect(describeRedisTarget(redisTargetOf(loadConfig({})))).toBe(
      'REDIS_URL redis://127.0.0.1:6379',
    );
  });

  it('reads host:port entries, with spaces, host names and bracketed IPv6', () => {
    const config = loadConfig({
      REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-a.internal:7001 ,[fd00::2]:7002',
    });
    expect(config.redisClusterNodes).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-a.internal', port: 7001 },
      { host: 'fd00::2', port: 7002 },
    ]);
    expect(Object.isFrozen(config.redisClusterNodes[0])).toBe(true);
    expect(describeRedisTarget(redisTargetOf(config))).toBe(
      'REDIS_CLUSTER_NODES 10.0.0.1:7000,redis-a.internal:7001,[fd00::2]:7002',
    );
  });

  it.each([
    ['10.0.0.1', '"10.0.0.1" is not host:port'],
    ['10.0.0.1:7000,', '"" is not host:port'],
    ['10.0.0.1:7000,redis://10.0.0.2:7000', '"redis://10.0.0.2:7000" is not host:port'],
    ['10.0.0.1:70000', '"10.0.0.1:70000" has port 70000: a port is 1 to 65535'],
    ['10.0.0.1:0', 'a port is 1 to 65535'],
    ['a b:7000', '"a b:7000" is not host:port'],
    ['10.0.0.1:7000,10.0.0.1:7000', '"10.0.0.1:7000" is listed twice'],
  ])('refuses %j, naming the entry', (value, problem) => {
    expect(parseRedisClusterNodes(value)).toContain(problem);
    const message = configError({ REDIS_CLUSTER_NODES: value });
    expect(message).toContain(`REDIS_CLUSTER_NODES (got "${value}")`);
    expect(message).toContain(problem);
  });

  it('refuses to be set with ENVDATA_QUEUE_BACKEND=postgres, saying what to change', () => {
    const message = configError({
      REDIS_CLUSTER_NODES: '10.0.0.1:7000',
      ENVDATA_QUEUE_BACKEND: 'postgres',
    });
    expect(message).toContain('REDIS_CLUSTER_NODES');
    expect(message).toContain('ENVDATA_QUEUE_BACKEND=postgres');
    expect(message).toContain('unset REDIS_CLUSTER_NODES, or set ENVDATA_QUEUE_BACKEND=redis');
    // Each alone is fine.
    expect(loadConfig({ ENVDATA_QUEUE_BACKEND: 'postgres' }).queueBackend).toBe('postgres');
  });

  it('lists its problem with the others', () => {
    const message = configError({ REDIS_CLUSTER_NODES: 'nohost', DATABASE_URL: 'mysql://x' });
    expect(message).toContain('DATABASE_URL');
    expect(message).toContain('"nohost" is not host:port');
  });

  it('takes the nodes’ user, password and TLS from REDIS_URL, and never shows the password', () => {
    expect(credentialsOf('rediss://app:s%3Dcret@cache.example:6380')).toEqual({
      username: 'app',
      password: 's=cret',
      tls: {},
    });
    expect(credentialsOf('redis://127.0.0.1:6379')).toEqual({});
    const config = loadConfig({
      REDIS_URL: 'redis://:hunter22@127.0.0.1:6379',
      REDIS_CLUSTER_NODES: '10.0.0.1:7000',
    });
    expect(describeRedisTarget(redisTargetOf(config))).not.toContain('hunter22');
  });

  it('exits 2 on the command line, naming the variable and the bad entry', async () => {
    const result = await runEnvdata(['status'], {
      REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2',
      LOG_FORMAT: 'json',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('REDIS_CLUSTER_NODES');
    expect(result.stderr).toContain('"10.0.0.2" is not host:port');
  });
});
