import type { Command } from 'commander';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/cli/command-context.js';
import { buildProgram } from '../../src/cli/run-cli.js';
import { DEMO_API_KEY } from '../../src/simulator/simulator-options.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';

// Every command that takes --from/--to reads them the same way: whole UTC hours, from before to,
// checked before anything is touched (Postgres and Redis here do not answer: a bound checked
// after touching them would fail with exit 1 and their message).
const nowhere = {
  DATABASE_URL: 'postgres://envdata@127.0.0.1:1/nowhere',
  REDIS_URL: 'redis://127.0.0.1:1',
  ENVDATA_API_KEY: DEMO_API_KEY,
};

/** What else each such command needs on its line to get as far as its bounds. */
const OTHER_ARGS: Record<string, readonly string[]> = {
  backfill: ['--dataset', 'weather'],
  certify: ['--location', 'Berlin', '--dataset', 'weather'],
  rebuild: [],
};

/**
 * Commands whose `--to` names a directory, not an hour (the export's, issue 42): no `--from`,
 * nothing to check here; listed so that a new hour-bounded command cannot hide among them.
 */
const TO_IS_A_DIRECTORY = ['export parquet', 'export query', 'export verify'];

/** The path of every command of `envdata` that has a `--from` option (`locations import`…). */
function commandsWithFrom(): string[] {
  const sink = new PassThrough();
  const program = buildProgram(new CommandContext({ env: {}, stdout: sink, stderr: sink }));
  const found: string[] = [];
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      const subPath = [...path, sub.name()];
      if (sub.options.some((o) => o.long === '--from' || o.long === '--to')) {
        found.push(subPath.join(' '));
      }
      walk(sub, subPath);
    }
  };
  walk(program, []);
  return found.sort();
}

describe('--from and --to', () => {
  it('are taken by the commands this file checks, and only those', () => {
    expect(commandsWithFrom()).toEqual([...Object.keys(OTHER_ARGS), ...TO_IS_A_DIRECTORY].sort());
  });

  describe.each(Object.entries(OTHER_ARGS))('envdata %s', (command, other) => {
    const run = (from: string, to: string) =>
      runCliInProcess([...command.split(' '), ...other, '--from', from, '--to', to], nowhere);

    it('refuses a --from inside an hour with exit 2 and the two whole hours around it', async () => {
      const result = await run('2024-01-01 00:30:00', '2024-01-02');
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        'envdata: --from "2024-01-01 00:30:00" is not a whole UTC hour: envdata works in whole hours; use "2024-01-01 00:00:00" or "2024-01-01 01:00:00"\n',
      );
      expect(result.stderr).not.toMatch(/does not answer|Postgres|Redis|\n\s+at /);
    });

    it('refuses a --to inside an hour the same way', async () => {
      const result = await run('2024-01-01', '2024-01-01 05:00:01');
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        'envdata: --to "2024-01-01 05:00:01" is not a whole UTC hour: envdata works in whole hours; use "2024-01-01 05:00:00" or "2024-01-01 06:00:00"\n',
      );
    });

    it('refuses --from not before --to, and an impossible date', async () => {
      const reversed = await run('2024-01-02', '2024-01-01');
      expect(reversed.code, reversed.stderr).toBe(2);
      expect(reversed.stderr).toMatch(/--from \(2024-01-02T00:00:00\.000Z\) must be before --to/);
      const impossible = await run('2023-02-30', '2023-03-02');
      expect(impossible.code, impossible.stderr).toBe(2);
      expect(impossible.stderr).toMatch(/--from "2023-02-30" is not a real date and time/);
    });
  });
});
