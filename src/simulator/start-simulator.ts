import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvdataError } from '../errors/envdata-error.js';
import { trackResource } from '../lifecycle/open-resources.js';
import type { FaultState } from './faults/fault-injector.js';
import type { FaultScript, FaultSettings } from './faults/fault-settings.js';
import { readFaultSettings } from './faults/read-fault-settings.js';
import { createRequestListener } from './http/create-request-listener.js';
import { isLoopbackHost } from './is-loopback-host.js';
import { readRuntimeOptions } from './read-runtime-options.js';
import {
  DEFAULT_SIMULATOR_OPTIONS,
  type SimulatorOptions,
  type SimulatorRuntimeOptions,
} from './simulator-options.js';
import { SimulatorState } from './simulator-state.js';
import type { LoggedRequest } from './stats/request-log.js';
import type { SimulatorStats } from './stats/simulator-stats.js';

/** A simulator listening on a port, and its controls. */
export interface RunningSimulator {
  /** Base address to give the client: `http://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /** Stops listening, drops every connection (keep-alive and held ones) and resolves when done. */
  close(): Promise<void>;
  /** Requests counted since start or the last reset, with each key's quota use now. */
  stats(): SimulatorStats;
  /** Zeroes the stats and empties the request log. */
  resetStats(): void;
  /** The recent requests, oldest first (`requestLog` option; empty without it). */
  requests(): LoggedRequest[];
  /** Forgets rate-limit windows and quota counts. */
  resetLimits(): void;
  /**
   * Forgets which history hours were answered: every hour's next answer is its first, with its
   * original values (`revise` option).
   */
  forgetServedHours(): void;
  /** Replaces every fault rule and script: settings or the compact spec text. */
  setFaults(faults: FaultSettings | string): void;
  /** Appends one-shot scripts: objects or spec text (`history:error=503x3`). */
  addFaultScripts(scripts: readonly FaultScript[] | string): void;
  clearFaults(): void;
  /** Faults in force, with what each script has left. */
  faults(): FaultState;
  /** Changes runtime options (shapes, limits, keys, frozen clock, revisions); validated. */
  setOptions(patch: Partial<SimulatorRuntimeOptions>): void;
  options(): SimulatorRuntimeOptions;
}

/**
 * Starts the Environmental Data Service simulator: the 13 endpoints with the service's real
 * response shapes, deterministic data, keys, limits, fault injection and an admin endpoint.
 * Port 0 (the default) takes a free port; read it from `url`/`port`.
 *
 * Throws `EnvdataError('CONFIG_INVALID')` for invalid options or a port that cannot be bound,
 * and refuses to listen beyond loopback (`0.0.0.0`, a LAN address) with the admin endpoint on
 * and no `adminToken`: anyone who reaches it could change its faults, keys and limits.
 *
 * @example
 * const sim = await startSimulator({ faults: 'history:error=503x2' });
 * // … point the client at sim.url with key DEMO_API_KEY …
 * await sim.close();
 */
export async function startSimulator(
  options: Partial<SimulatorOptions> = {},
): Promise<RunningSimulator> {
  const merged: SimulatorOptions = { ...DEFAULT_SIMULATOR_OPTIONS, ...definedOnly(options) };
  const { port, host, faults, admin, adminToken, logger, requestLog, ...runtime } = merged;
  checkAdminAccess(host, admin, adminToken);
  if (!(Number.isSafeInteger(requestLog) && requestLog >= 0 && requestLog <= 1_000_000)) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `Invalid simulator options: requestLog must be a whole number of requests from 0 to 1000000 (got ${requestLog})`,
    );
  }
  let faultSettings: FaultSettings;
  try {
    readRuntimeOptions(runtime);
    faultSettings = readFaultSettings(faults);
  } catch (error) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `Invalid simulator options: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const state = new SimulatorState(runtime, faultSettings, admin, logger, adminToken, requestLog);
  const server = createServer(createRequestListener(state));
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new EnvdataError(
          'CONFIG_INVALID',
          `The simulator cannot listen on ${host}:${port} (${error.code ?? error.message}): choose another port (ENVDATA_SIM_PORT, --port) or 0 for a free one`,
          { cause: error },
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${bound}`;
  logger?.info({ url }, 'simulator listening');

  let closing: Promise<void> | undefined;
  const untrack = trackResource('simulator', url, () => simulator.close());
  const simulator: RunningSimulator = {
    url,
    port: bound,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const timer of state.timers) clearTimeout(timer);
        state.timers.clear();
        for (const res of state.held) res.destroy();
        state.held.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }).finally(untrack);
      return closing;
    },
    stats: () => state.statsSnapshot(),
    resetStats: () => {
      state.stats.reset();
      state.requests.clear();
    },
    requests: () => state.requests.entries(),
    resetLimits: () => state.gate.reset(),
    forgetServedHours: () => state.served.clear(),
    setFaults: (settings) => state.faults.set(readFaultSettings(settings)),
    addFaultScripts: (scripts) =>
      state.faults.addScripts(
        readFaultSettings(typeof scripts === 'string' ? scripts : { scripts }).scripts ?? [],
      ),
    clearFaults: () => state.faults.clear(),
    faults: () => state.faults.state(),
    setOptions: (patch) => state.update(readRuntimeOptions(patch)),
    options: () => state.options,
  };
  return simulator;
}

/** Shortest admin token accepted. */
const MIN_ADMIN_TOKEN = 16;

function checkAdminAccess(host: string, admin: boolean, token: string | undefined): void {
  if (token !== undefined && (token.length < MIN_ADMIN_TOKEN || /\s/.test(token))) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `The simulator's admin token (ENVDATA_SIM_ADMIN_TOKEN) must be at least ${MIN_ADMIN_TOKEN} characters without spaces: use e.g. \`openssl rand -hex 16\``,
    );
  }
  if (admin && token === undefined && !isLoopbackHost(host)) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `The simulator would listen on ${host}, beyond loopback, with its admin endpoint (/__admin/: faults, keys, limits, stats) open to anyone who reaches it. ` +
        'Set ENVDATA_SIM_ADMIN_TOKEN (16+ characters; clients send it as x-admin-token or Authorization: Bearer), ' +
        'or turn the admin endpoint off with ENVDATA_SIM_ADMIN=off, or listen on 127.0.0.1 (ENVDATA_SIM_HOST)',
      { details: { host } },
    );
  }
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
