import { Agent, request } from 'undici';
import { afterAll, beforeAll } from 'vitest';
import { DEMO_API_KEY, type SimulatorOptions } from '../../src/simulator/simulator-options.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/start-simulator.js';

/** The frozen clock of the simulator tests: 2024-07-01 12:34 UTC. */
export const TEST_NOW = '2024-07-01T12:34:00Z';

export interface SimpleResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON; throws if it is not JSON. */
  json<T = Record<string, unknown>>(): T;
}

/** A keep-alive HTTP client for the tests, closed with `close()` in `afterAll`. */
export function createTestClient(baseUrl: () => string) {
  const agent = new Agent({ connections: 8 });
  const send = async (
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: { key?: string | null; body?: unknown; headersTimeout?: number } = {},
  ): Promise<SimpleResponse> => {
    const key = options.key === undefined ? DEMO_API_KEY : options.key;
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body);
    const res = await request(`${baseUrl()}${path}`, {
      method,
      dispatcher: agent,
      headers: key === null ? {} : { 'x-api-key': key },
      body,
      headersTimeout: options.headersTimeout,
    });
    const text = await res.body.text();
    return {
      status: res.statusCode,
      headers: res.headers,
      text,
      json: <T>() => JSON.parse(text) as T,
    };
  };
  return {
    get: (path: string, options?: { key?: string | null; headersTimeout?: number }) =>
      send('GET', path, options),
    post: (path: string, body?: unknown) => send('POST', path, { body }),
    delete: (path: string) => send('DELETE', path),
    close: () => agent.close(),
  };
}

/** `YYYY-MM-DD hh:mm:ss`, URL-encoded, as the client sends `from`/`to`. */
export function serviceTime(iso: string): string {
  return encodeURIComponent(iso.replace('T', ' ').replace(/(\.\d+)?Z$/, ''));
}

/** A history query for coordinates and an ISO range. */
export function historyQuery(lat: number, lng: number, fromIso: string, toIso: string): string {
  return `lat=${lat}&lng=${lng}&from=${serviceTime(fromIso)}&to=${serviceTime(toIso)}`;
}

/** Places the tests use, with coordinates as a client would send them. */
export const PLACES = {
  berlin: { lat: 52.52, lng: 13.405 },
  newYork: { lat: 40.7128, lng: -74.006 },
  brisbane: { lat: -27.4698, lng: 153.0251 },
  darwin: { lat: -12.4634, lng: 130.8456 },
  sydney: { lat: -33.8688, lng: 151.2093 },
  auckland: { lat: -36.8485, lng: 174.7633 },
  nairobi: { lat: -1.2921, lng: 36.8219 },
  saoPaulo: { lat: -23.5505, lng: -46.6333 },
} as const;

/**
 * Starts a simulator (clock frozen at `TEST_NOW`, port 0) before the file's tests and closes it
 * and the client after them. `sim` is readable once `beforeAll` has run.
 */
export function useTestSimulator(options: Partial<SimulatorOptions> = {}) {
  let running: RunningSimulator | undefined;
  const sim = (): RunningSimulator => {
    if (running === undefined) throw new Error('the simulator starts in beforeAll');
    return running;
  };
  const client = createTestClient(() => sim().url);
  beforeAll(async () => {
    running = await startSimulator({ now: TEST_NOW, ...options });
  });
  afterAll(async () => {
    await client.close();
    await running?.close();
  });
  return { sim, client };
}
