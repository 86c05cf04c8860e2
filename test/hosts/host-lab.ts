import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Network namespaces as hosts, for tests of envdata on many hosts: each host is a namespace
 * linked by a veth pair to a bridge in the root namespace, on a private /24 of its own. No
 * default route, no NAT: a host reaches the bridge's address (where the test's private
 * Postgres, Redis and simulator listen) and its subnet, nothing else. Needs root and `ip`.
 *
 * Every name carries the pid of the process that made the lab (`envd-<pid>-h1`, links
 * `envd<pid>b`, `envd<pid>h1`, directory `<tmp>/envd-<pid>`), so `removeLeftoverLabs` can find
 * what a crashed run left behind and remove it: the processes started in its namespaces, its
 * Postgres and Redis, its links and namespaces.
 */
export interface HostLab {
  /** `envd-<pid>`: the prefix of the lab's namespaces and its directory's name. */
  readonly id: string;
  /** The lab's directory (private services keep their data here). */
  readonly dir: string;
  /** The root namespace's address on the bridge: where the hosts find the shared services. */
  readonly gatewayIp: string;
  /** The lab's network, `10.213.<x>.0/24`. */
  readonly subnet: string;
  readonly hosts: readonly LabHost[];
  /** Starts `command args…` inside `host`'s namespace (`ip netns exec`). */
  spawnOn(
    host: LabHost,
    command: string,
    args: readonly string[],
    env: Record<string, string>,
  ): ChildProcess;
  /**
   * Cuts the host off: its link goes down on the root side, so every packet either way is
   * dropped without a word (no reset, no "unreachable"), as when a cable is pulled beyond a
   * switch. Open connections stay open and carry on once `restore` brings the link back.
   */
  cut(host: LabHost): void;
  restore(host: LabHost): void;
  /** Kills what runs in the namespaces, removes them, the bridge and the directory. */
  remove(): void;
}

export interface LabHost {
  /** `h1`, `h2`, … */
  readonly name: string;
  readonly netns: string;
  /** The host's address on the lab's network. */
  readonly ip: string;
  /** The root namespace's end of its veth pair (what `cut` takes down). */
  readonly link: string;
}

const PREFIX = 'envd';
const NETNS = /^envd-(\d+)-h\d+$/;
const LINK = /^envd(\d+)(?:b|h\d+)$/;
const DIR = /^envd-(\d+)$/;

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Why this machine cannot run the lab, or `undefined` when it can (root, `ip` with netns). */
export function labUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) {
    return 'it makes network namespaces, which needs root: run it as root (sudo npm run test:hosts)';
  }
  try {
    ip('netns', 'list');
  } catch {
    return 'it needs the `ip` command with network namespaces (iproute2: apt-get install iproute2)';
  }
  if (!existsSync('/usr/lib/postgresql')) {
    return 'it starts a Postgres of its own from /usr/lib/postgresql/<version>/bin (apt-get install postgresql)';
  }
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    return 'it starts a Redis of its own and needs redis-server (apt-get install redis-server)';
  }
  return undefined;
}

/** Creates `count` hosts. Removes what an earlier, crashed run left first. */
export async function createHostLab(count: number): Promise<HostLab> {
  removeLeftoverLabs();
  const pid = process.pid;
  const id = `${PREFIX}-${pid}`;
  const dir = join(tmpdir(), id);
  await mkdir(dir, { recursive: true });
  // Private Postgres runs as the `postgres` user, and must reach its directory in here.
  await chmod(dir, 0o755);
  const x = freeThirdOctet(pid);
  const net = `10.213.${x}`;
  const gatewayIp = `${net}.1`;
  const bridge = `${PREFIX}${pid}b`;
  const hosts: LabHost[] = Array.from({ length: count }, (_, i) => ({
    name: `h${i + 1}`,
    netns: `${id}-h${i + 1}`,
    ip: `${net}.${11 + i}`,
    link: `${PREFIX}${pid}h${i + 1}`,
  }));
  const lab: HostLab = {
    id,
    dir,
    gatewayIp,
    subnet: `${net}.0/24`,
    hosts,
    spawnOn: (host, command, args, env) =>
      spawn('ip', ['netns', 'exec', host.netns, command, ...args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    cut: (host) => void ip('link', 'set', host.link, 'down'),
    restore: (host) => void ip('link', 'set', host.link, 'up'),
    remove: () => removeLab(pid),
  };
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gatewayIp}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    for (const host of hosts) {
      ip('netns', 'add', host.netns);
      ip('link', 'add', host.link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', host.netns);
      ip('link', 'set', host.link, 'master', bridge);
      ip('link', 'set', host.link, 'up');
      const inNs = (...args: string[]) => ip('-n', host.netns, ...args);
      inNs('addr', 'add', `${host.ip}/24`, 'dev', 'eth0');
      inNs('link', 'set', 'eth0', 'up');
      inNs('link', 'set', 'lo', 'up');
    }
  } catch (error) {
    lab.remove();
    throw error;
  }
  return lab;
}

/**
 * A third octet for `10.213.<x>.0/24` that no route or address of this machine overlaps,
 * starting from one derived from the pid.
 */
function freeThirdOctet(pid: number): number {
  const taken = [
    ...ip('-4', '-o', 'route', 'show', 'table', 'all').split('\n'),
    ...ip('-4', '-o', 'addr', 'show').split('\n'),
  ]
    .map((line) =>
      /(\d+\.\d+\.\d+\.\d+)(?:\/(\d+))?/.exec(line.replace(/^\d+:\s+\S+\s+inet\s+/, '')),
    )
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ base: toInt(m[1]!), bits: Number(m[2] ?? 32) }));
  for (let i = 0; i < 250; i += 1) {
    const x = ((pid + i) % 250) + 2;
    const base = toInt(`10.213.${x}.0`);
    const overlaps = taken.some(({ base: b, bits }) => {
      const bitsBoth = Math.min(bits, 24);
      const mask = bitsBoth === 0 ? 0 : (~0 << (32 - bitsBoth)) >>> 0;
      return (b & mask) >>> 0 === (base & mask) >>> 0;
    });
    if (!overlaps) return x;
  }
  throw new Error('no free 10.213.x.0/24 network on this machine for the host lab');
}

function toInt(address: string): number {
  return address.split('.').reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes every lab whose process is gone (a run that crashed or was killed). */
export function removeLeftoverLabs(): void {
  const pids = new Set<number>();
  const collect = (pattern: RegExp, names: readonly string[]) => {
    for (const name of names) {
      const m = pattern.exec(name);
      if (m) pids.add(Number(m[1]));
    }
  };
  collect(NETNS, namespaces());
  collect(LINK, links());
  collect(DIR, existsSync(tmpdir()) ? readdirSync(tmpdir()) : []);
  for (const pid of pids) if (!alive(pid)) removeLab(pid);
}

function namespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter(Boolean);
}

function links(): string[] {
  return ip('-o', 'link', 'show')
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/**
 * Removes lab `pid`: kills the processes in its namespaces (started by the test: the workers),
 * stops its private Postgres and Redis, deletes the namespaces (and so their veth pairs), the
 * bridge and the directory. Synchronous, so that it also runs from a signal handler; every step
 * goes on when another fails.
 */
function removeLab(pid: number): void {
  const quiet = (f: () => unknown) => {
    try {
      f();
    } catch {
      // Gone already, or never made: nothing to remove.
    }
  };
  for (const netns of namespaces().filter((n) => n.startsWith(`${PREFIX}-${pid}-`))) {
    quiet(() => {
      for (const p of ip('netns', 'pids', netns).split('\n').filter(Boolean)) {
        quiet(() => process.kill(Number(p), 'SIGKILL'));
      }
    });
    quiet(() => ip('netns', 'delete', netns));
  }
  for (const link of links().filter((l) => l.startsWith(`${PREFIX}${pid}`) && LINK.test(l))) {
    quiet(() => ip('link', 'delete', link));
  }
  const dir = join(tmpdir(), `${PREFIX}-${pid}`);
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir)) {
    const sub = join(dir, entry);
    if (entry.startsWith('envdata-redis-')) {
      quiet(() => process.kill(Number(readFileSync(join(sub, 'redis.pid'), 'utf8')), 'SIGKILL'));
    }
    if (entry.startsWith('envdata-pg-') && existsSync(join(sub, 'data', 'postmaster.pid'))) {
      const bin = readdirSync('/usr/lib/postgresql').sort().reverse()[0];
      quiet(() =>
        execFileSync(
          'runuser',
          [
            '-u',
            'postgres',
            '--',
            `/usr/lib/postgresql/${bin}/bin/pg_ctl`,
            '-D',
            join(sub, 'data'),
            '-m',
            'immediate',
            'stop',
          ],
          { stdio: 'ignore' },
        ),
      );
    }
  }
  quiet(() => rmSync(dir, { recursive: true, force: true }));
}
