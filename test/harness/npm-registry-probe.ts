import { execFile } from 'node:child_process';

// The harness is the one place in the tests that reads the environment.
const env = process.env;

/** What `probeNpmRegistry` found. */
export interface RegistryProbe {
  /** The registry npm is configured with (`npm config get registry`), or `undefined` if unread. */
  readonly registry: string | undefined;
  readonly answers: boolean;
  /** Why not, when it does not answer: npm's error code, or the time it was given. */
  readonly reason?: string;
}

/** How long `npm ping` may take, all of it, before the registry counts as unreachable. */
const PROBE_TIMEOUT_MS = 15_000;

/**
 * Whether npm's registry answers, asked once with `npm ping` (one request, no retries, a short
 * timeout, killed after `timeoutMs` whatever npm does): npm's own configuration decides where and
 * how (registry, proxy, CA), as it will for an install. Without it an install that needs the
 * registry asks it for every package's metadata, each after about a minute of retries when the
 * name does not resolve (`EAI_AGAIN`): 15 minutes of silence before a test's timeout.
 */
export async function probeNpmRegistry(
  options: { cwd: string; env: Record<string, string> },
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<RegistryProbe> {
  const registry = await npm(['config', 'get', 'registry'], options, timeoutMs).then((r) =>
    r.code === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined,
  );
  const fetchTimeout = Math.max(1_000, timeoutMs - 3_000);
  const ping = await npm(
    ['ping', '--fetch-retries=0', `--fetch-timeout=${fetchTimeout}`],
    options,
    timeoutMs,
  );
  if (ping.code === 0) return { registry, answers: true };
  const reason = ping.timedOut
    ? `no answer to npm ping in ${Math.round(timeoutMs / 1000)} s`
    : (/npm error code (\S+)/.exec(ping.stderr)?.[1] ?? `npm ping exited ${ping.code}`);
  return { registry, answers: false, reason };
}

/**
 * Why a test that needs npm's registry cannot run here, or `undefined` when the registry answers
 * (`probeNpmRegistry`). Under CI=true, where the registry is part of the machine, it throws
 * instead, saying so: the test fails at once rather than waiting out npm's retries.
 */
export async function npmRegistryMissing(
  npm: { cwd: string; env: Record<string, string> },
  ci = env.CI === 'true',
): Promise<string | undefined> {
  const probe = await probeNpmRegistry(npm);
  if (probe.answers) return undefined;
  const why = `${probe.registry ?? "npm's registry"} does not answer (${probe.reason})`;
  if (ci) throw new Error(`under CI=true the npm registry is required: ${why}`);
  return why;
}

interface NpmResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** `npm ARGS…`, killed after `timeoutMs`. */
function npm(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
  timeoutMs: number,
): Promise<NpmResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      args,
      { cwd: options.cwd, env: options.env, timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const failed = error as (Error & { code?: unknown; killed?: boolean }) | null;
        resolve({
          code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0,
          stdout,
          stderr,
          timedOut: failed?.killed === true,
        });
      },
    );
  });
}
