import { describe, expect, it } from 'vitest';
import {
  parseSimulatorEnvironment,
  SIMULATOR_ENVIRONMENT_VARIABLES,
} from '../../src/cli/simulator-environment.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';
import { parseFaultSpec } from '../../src/simulator/faults/parse-fault-spec.js';
import { DEFAULT_SIMULATOR_OPTIONS, DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { startSimulator } from '../../src/simulator/start-simulator.js';
import { createTestClient, TEST_NOW } from '../simulator/simulator-http.js';

describe('parseSimulatorEnvironment', () => {
  it('gives the defaults for an empty environment, on port 8787', () => {
    const options = parseSimulatorEnvironment({});
    expect(options).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      keys: { [DEMO_API_KEY]: ['pollen', 'weather', 'geocode'] },
      maxRangeHours: 48,
      rateLimit: null,
      quota: null,
      dailyQuota: null,
      daySeconds: 86_400,
      legacyShapes: false,
      now: null,
      admin: true,
      faults: { rules: [], scripts: [], seed: 1 },
    });
  });

  it('parses every variable', () => {
    const options = parseSimulatorEnvironment({
      ENVDATA_SIM_PORT: '0',
      ENVDATA_SIM_HOST: '::1',
      ENVDATA_SIM_KEYS: 'alpha-key:pollen+weather, beta-key:*, gamma-key',
      ENVDATA_SIM_MAX_RANGE_HOURS: '2d',
      ENVDATA_SIM_RATE_LIMIT: '10/5s',
      ENVDATA_SIM_RETRY_AFTER: 'sometimes',
      ENVDATA_SIM_DAILY_QUOTA: '5000/422',
      ENVDATA_SIM_MONTHLY_QUOTA: '100000',
      ENVDATA_SIM_QUOTA_TIME_ZONE: 'Europe/Berlin',
      ENVDATA_SIM_QUOTA_RETRY_AFTER: 'always',
      ENVDATA_SIM_DAY_SECONDS: '2',
      ENVDATA_SIM_FAULTS: 'history:error=503x3; all:latency=20@10%',
      ENVDATA_SIM_FAULT_SEED: '7',
      ENVDATA_SIM_LEGACY_SHAPES: 'capital-success, risks-key',
      ENVDATA_SIM_NOW: TEST_NOW,
      ENVDATA_SIM_ADMIN: 'off',
    });
    expect(options).toMatchObject({
      port: 0,
      host: '::1',
      keys: {
        'alpha-key': ['pollen', 'weather'],
        'beta-key': ['pollen', 'weather', 'geocode'],
        'gamma-key': ['pollen', 'weather', 'geocode'],
      },
      maxRangeHours: 48,
      rateLimit: { max: 10, durationMs: 5000, retryAfter: 'sometimes' },
      quota: {
        perDay: 5000,
        perMonth: 100_000,
        timeZone: 'Europe/Berlin',
        status: 422,
        retryAfter: 'always',
      },
      dailyQuota: null,
      daySeconds: 2,
      faults: {
        scripts: [{ endpoint: 'history', kind: 'error', status: 503, count: 3 }],
        rules: [{ endpoint: 'all', kind: 'latency', latencyMs: 20, rate: 0.1 }],
        seed: 7,
      },
      legacyShapes: { capitalSuccess: true, speciesRiskKey: 'Risks' },
      now: TEST_NOW,
      admin: false,
    });
  });

  it('lists every problem at once and never shows key values', () => {
    let thrown: unknown;
    try {
      parseSimulatorEnvironment({
        ENVDATA_SIM_PORT: '70000',
        ENVDATA_SIM_KEYS: 'secret-key-value:coffee',
        ENVDATA_SIM_RATE_LIMIT: 'lots',
        ENVDATA_SIM_FAULTS: 'history:explode x1',
        ENVDATA_SIM_LEGACY_SHAPES: 'sparkly',
      });
    } catch (error) {
      thrown = error;
    }
    expect(isEnvdataError(thrown) && thrown.code).toBe('CONFIG_INVALID');
    const message = (thrown as Error).message;
    for (const name of [
      'ENVDATA_SIM_PORT',
      'ENVDATA_SIM_KEYS',
      'ENVDATA_SIM_RATE_LIMIT',
      'ENVDATA_SIM_FAULTS',
      'ENVDATA_SIM_LEGACY_SHAPES',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain('secret-key-value');
  });

  it("gives a quota the service's answer by default: 429 without Retry-After, UTC days", () => {
    expect(parseSimulatorEnvironment({ ENVDATA_SIM_MONTHLY_QUOTA: '300' })).toMatchObject({
      quota: { perMonth: 300, timeZone: 'UTC', status: 429, retryAfter: 'never' },
      daySeconds: 86_400,
    });
    expect(parseSimulatorEnvironment({ ENVDATA_SIM_DAILY_QUOTA: '40' }).quota).not.toHaveProperty(
      'perMonth',
    );
  });

  it('refuses bad quota variables, naming each and what it accepts', () => {
    let thrown: unknown;
    try {
      parseSimulatorEnvironment({
        ENVDATA_SIM_DAILY_QUOTA: '10/422',
        ENVDATA_SIM_MONTHLY_QUOTA: 'plenty',
        ENVDATA_SIM_QUOTA_TIME_ZONE: 'Mars/Olympus',
        ENVDATA_SIM_QUOTA_RETRY_AFTER: 'often',
        ENVDATA_SIM_DAY_SECONDS: '0',
      });
    } catch (error) {
      thrown = error;
    }
    expect(isEnvdataError(thrown) && thrown.code).toBe('CONFIG_INVALID');
    const message = (thrown as Error).message;
    expect(message).toContain(
      'ENVDATA_SIM_MONTHLY_QUOTA (got "plenty"): must be a number of calls, optionally /429 or /422',
    );
    expect(message).toContain(
      'ENVDATA_SIM_QUOTA_TIME_ZONE (got "Mars/Olympus"): must be an IANA time zone',
    );
    expect(message).toContain(
      'ENVDATA_SIM_QUOTA_RETRY_AFTER (got "often"): must be always, sometimes or never',
    );
    expect(message).toContain(
      'ENVDATA_SIM_DAY_SECONDS (got "0"): must be whole seconds from 1 to 86400',
    );
    expect(() =>
      parseSimulatorEnvironment({
        ENVDATA_SIM_DAILY_QUOTA: '10/422',
        ENVDATA_SIM_MONTHLY_QUOTA: '100/429',
      }),
    ).toThrow(/the quota has one status/);
  });

  it('reads ENVDATA_SIM_REVISE as a share, in percent or not, with an optional seed', () => {
    expect(parseSimulatorEnvironment({}).revise).toBeNull();
    expect(parseSimulatorEnvironment({ ENVDATA_SIM_REVISE: '25%:v2' }).revise).toEqual({
      share: 0.25,
      seed: 'v2',
    });
    expect(parseSimulatorEnvironment({ ENVDATA_SIM_REVISE: '0.1' }).revise).toEqual({ share: 0.1 });
    expect(parseSimulatorEnvironment({ ENVDATA_SIM_REVISE: 'off' }).revise).toBeNull();
    for (const text of ['150%', '1.5', '-0.1', 'lots']) {
      expect(() => parseSimulatorEnvironment({ ENVDATA_SIM_REVISE: text })).toThrow(
        `ENVDATA_SIM_REVISE (got "${text}"): must be a share of hours from 0 to 1`,
      );
    }
  });

  it('documents every variable it reads, with a description', () => {
    const names = SIMULATOR_ENVIRONMENT_VARIABLES.map((v) => v.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'ENVDATA_SIM_PORT',
        'ENVDATA_SIM_KEYS',
        'ENVDATA_SIM_MAX_RANGE_HOURS',
        'ENVDATA_SIM_RATE_LIMIT',
        'ENVDATA_SIM_DAILY_QUOTA',
        'ENVDATA_SIM_MONTHLY_QUOTA',
        'ENVDATA_SIM_QUOTA_TIME_ZONE',
        'ENVDATA_SIM_QUOTA_RETRY_AFTER',
        'ENVDATA_SIM_DAY_SECONDS',
        'ENVDATA_SIM_FAULTS',
        'ENVDATA_SIM_LEGACY_SHAPES',
      ]),
    );
    expect(SIMULATOR_ENVIRONMENT_VARIABLES.every((v) => v.description.length > 20)).toBe(true);
  });

  it('starts a simulator that behaves as configured', async () => {
    const sim = await startSimulator({
      ...parseSimulatorEnvironment({
        ENVDATA_SIM_PORT: '0',
        ENVDATA_SIM_KEYS: 'only-key:geocode',
        ENVDATA_SIM_FAULTS: 'geocode:error=500x1',
      }),
      now: TEST_NOW,
    });
    const client = createTestClient(() => sim.url);
    try {
      expect((await client.get('/geocode/by-place?place=Oslo', { key: 'only-key' })).status).toBe(
        500,
      );
      expect((await client.get('/geocode/by-place?place=Oslo', { key: 'only-key' })).status).toBe(
        200,
      );
      expect((await client.get('/geocode/by-place?place=Oslo')).status).toBe(401);
    } finally {
      await client.close();
      await sim.close();
    }
  });
});

describe('parseFaultSpec', () => {
  it('reads rules, scripts, parameters, percentages and the seed', () => {
    const { settings, problems } = parseFaultSpec(
      'all:error=503@0.05; /history/pollen/by-lat-lng:hang x2\nweather:truncated@5%; pollen:text=504x1; seed=9',
    );
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      rules: [
        { endpoint: 'all', kind: 'error', status: 503, rate: 0.05 },
        { endpoint: 'weather', kind: 'truncated', rate: 0.05 },
      ],
      scripts: [
        { endpoint: '/history/pollen/by-lat-lng', kind: 'hang', count: 2 },
        { endpoint: 'pollen', kind: 'text', status: 504, count: 1 },
      ],
      seed: 9,
    });
  });

  it('reports each bad entry', () => {
    const { problems } = parseFaultSpec(
      'all:error@2; nowhere:error x1; all:reset=5 x1; all:error=99x1; junk',
    );
    expect(problems).toHaveLength(5);
  });
});

describe('startSimulator options', () => {
  it('refuses invalid options and a port in use with CONFIG_INVALID', async () => {
    await expect(startSimulator({ maxRangeHours: 0 })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    await expect(startSimulator({ faults: 'all:error@5' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
    const sim = await startSimulator();
    try {
      expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
      await expect(startSimulator({ port: sim.port })).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
      });
    } finally {
      await sim.close();
    }
    expect(DEFAULT_SIMULATOR_OPTIONS.port).toBe(0);
  });
});
