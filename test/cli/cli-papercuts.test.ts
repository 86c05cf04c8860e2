import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { addPointLocation } from '../harness/add-point-location.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestEnvironment } from '../harness/test-environment.js';

// The messages of a mistyped command line, through the real binary: the typo is named first,
// with the closest known name, exit 2.

describe('a mistyped option is named before anything else', () => {
  it('`backfill --datset pollen`: unknown option with a suggestion, not "required option"', async () => {
    const result = await runEnvdata(['backfill', '--datset', 'pollen']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "error: unknown option '--datset' — did you mean '--dataset'?\n",
    );
    expect(result.stderr).not.toContain('required option');
  });

  it('`--datset=pollen` names the flag without its value', async () => {
    const result = await runEnvdata(['backfill', '--from', '2024-01-01', '--datset=pollen']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^error: unknown option '--datset' — did you mean '--dataset'\?\n/,
    );
  });

  it('an option far from every known one gets no suggestion', async () => {
    const result = await runEnvdata(['migrate', '--force-everything']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: unknown option '--force-everything'\n/);
  });
});

describe('an unknown command is refused, even with --help', () => {
  it.each([
    [['certfy', '--help'], "error: unknown command 'certfy' — did you mean 'certify'?\n"],
    [['help', 'frobnicate'], "error: unknown command 'frobnicate'\n"],
    [['backfil', '--help'], "error: unknown command 'backfil' — did you mean 'backfill'?\n"],
    [['locations', 'ad', '--help'], "error: unknown command 'ad' — did you mean 'add'?\n"],
  ])('%j: exit 2 naming it', async (args, message) => {
    const result = await runEnvdata(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(message)).toBe(true);
  });

  it('a known command’s --help still prints its help, exit 0', async () => {
    const result = await runEnvdata(['locations', 'help', 'add']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: envdata locations add/);
  });
});

describe('-y is --yes wherever --yes is', () => {
  it('`apply -y` reads as `apply --yes` (here: on to the missing file)', async () => {
    const result = await runEnvdata(['apply', '-y', '--file', '/nonexistent/envdata.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^envdata: cannot read \/nonexistent\/envdata\.yaml/);
  });

  it('`locations remove -y` reads as `--yes` (which only confirms --purge)', async () => {
    const result = await runEnvdata(['locations', 'remove', 'Nowhere', '-y']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^envdata: --yes only confirms --purge\n/);
  });
});

describe('the top-level help fits a screen; the environment has its own help', () => {
  it('`--help`: at most 50 lines of at most 80 columns, one line pointing to the variables', async () => {
    const result = await runEnvdata(['--help']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(50);
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    expect(result.stdout).toContain('`envdata help environment`');
    expect(result.stdout).not.toContain('ENVDATA_WORKER_CONCURRENCY');
  });

  it('`help environment`: every variable, with defaults, exit 0', async () => {
    const result = await runEnvdata(['help', 'environment']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Environment variables:\n/);
    expect(result.stdout).toMatch(/ENVDATA_WORKER_CONCURRENCY +.*\[default: 8\]/);
    expect(result.stdout).toContain('Environment variables of the simulator');
  });
});

describe('envdata.yaml problems in plain words, with the key meant', () => {
  const dir = useTempDir('envdata-papercuts-');

  it('a mistyped key suggests the closest valid one at its line:column; a range names its bounds', async () => {
    const file = await dir.write(
      'envdata.yaml',
      'version: 1\nlocations:\n  - { nme: Berlin, lat: 91, lng: 13.4 }\ndatasets:\n  weathr: { since: -30d }\n',
    );
    const result = await runEnvdata(['plan', '--file', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `${file}:3:7: locations[0].nme: unknown key "nme" — did you mean 'name'?\n`,
    );
    expect(result.stderr).toContain(
      `${file}:3:25: locations[0].lat: latitude must be between -90 and 90, got 91\n`,
    );
    expect(result.stderr).toContain(
      `${file}:5:3: datasets.weathr: unknown key "weathr" — did you mean 'weather'?\n`,
    );
    expect(result.stderr).not.toMatch(/Too big|expected number/);
  });
});

describe('a mistyped location name is told the registered one it is closest to', () => {
  const env = useTestEnvironment();
  let app: App;
  beforeAll(async () => {
    app = createApp(env.config());
    await addPointLocation(app.db, { name: 'Berlin', lat: 52.52, lng: 13.405 });
  });
  afterAll(async () => {
    await app.close();
  });

  it('`--location Berln` (and `locations remove Berln`): did you mean Berlin, exit 2', async () => {
    const vars = env.cliEnv({ LOG_LEVEL: 'silent' });
    const range = ['--dataset', 'pollen', '--from', '2024-06-01', '--to', '2024-06-02'];
    const backfill = await runEnvdata(
      ['backfill', ...range, '--location', 'Berln', '--dry-run'],
      vars,
    );
    expect(backfill.code).toBe(2);
    expect(backfill.stderr).toBe(
      'envdata: unknown location(s): "Berln" — did you mean \'Berlin\'? (registered ones: `envdata locations list`)\n',
    );
    const remove = await runEnvdata(['locations', 'remove', 'Berln', 'Atlantis'], vars);
    expect(remove.code).toBe(2);
    expect(remove.stderr).toMatch(
      /^envdata: unknown location\(s\): "Berln" — did you mean 'Berlin'\?; "Atlantis" \(registered/,
    );
  });
});

describe('the commands people start with have examples in their --help', () => {
  it.each([['backfill'], ['sync'], ['plan'], ['apply'], ['locations', 'add']])(
    '%j --help: examples of itself, with options it has',
    async (...path) => {
      const result = await runEnvdata([...path, '--help']);
      expect(result.code).toBe(0);
      const [usage, examples] = result.stdout.split('\nExamples:\n');
      const commands = (examples ?? '').split('\n').filter((l) => l.startsWith('  envdata '));
      expect(commands.length).toBeGreaterThan(0);
      for (const line of commands) {
        expect(line.startsWith(`  envdata ${path.join(' ')}`), line).toBe(true);
        for (const flag of line.match(/ (-[a-z]|--[a-z-]+)/g) ?? []) {
          expect(usage, `${line}: ${flag}`).toContain(`${flag.trim()}`);
        }
      }
    },
  );
});

describe('an unknown option is told by the command the line names', () => {
  it.each([
    [
      ['upstream', '--datset', 'pollen'],
      "'--datset' — did you mean '--dataset'?",
      'envdata upstream',
    ],
    [['upstream', 'accept', 'x', '--bogus'], "'--bogus'", 'envdata upstream accept'],
  ])('%j', async (args, named, command) => {
    const result = await runEnvdata(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: unknown option ${named}\n(run \`${command} --help\` for usage)\n`,
    );
  });
});
