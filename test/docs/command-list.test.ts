import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/cli/command-context.js';
import { completionTree, type CompletionNode } from '../../src/cli/completion/completion-tree.js';
import { buildProgram } from '../../src/cli/run-cli.js';

const COMMANDS = new URL('../../docs/commands.md', import.meta.url);
const nowhere = new Writable({ write: (_chunk, _encoding, callback) => callback() });
const program = buildProgram(new CommandContext({ env: {}, stdout: nowhere, stderr: nowhere }));

/** Options every command has, which the command list need not repeat. */
const GENERIC = new Set(['-h', '--help', '-V', '--version']);

const optionsOf = (node: CompletionNode) =>
  node.options.flatMap((o) => o.flags).filter((f) => f.startsWith('--') && !GENERIC.has(f));
/**
 * The commands a user runs, as commander defines them: leaves, and a command with subcommands
 * that runs itself too (`certify` beside `certify keygen`), `help` left out.
 */
const commands: CompletionNode[] = completionTree(program).filter(
  (node) =>
    node.path.length > 0 &&
    (node.commands.length === 0 || optionsOf(node).length > 0) &&
    !node.path.includes('help'),
);

/** One `envdata …` line of docs/commands.md's command list: the command and the options it shows. */
interface ListedCommand {
  readonly line: string;
  readonly path: string;
  readonly options: readonly string[];
}

/** The first `sh` block of docs/commands.md ("# Operating envdata"): the command list. */
async function listedCommands(): Promise<ListedCommand[]> {
  const text = await readFile(COMMANDS, 'utf8');
  const section = /^# Operating envdata\n([\s\S]*?)(?:^## |$(?![\s\S]))/m.exec(text)?.[1];
  const block = section && /^```sh\n([\s\S]*?)^```/m.exec(section)?.[1];
  if (!block)
    throw new Error('docs/commands.md has no command list (```sh) under "# Operating envdata"');
  return (
    block
      .split('\n')
      // `npx envdata …` and `node bin/envdata.js …` (how long-running commands are started).
      .filter((line) => /\benvdata(\.js)? /.test(line))
      .map((line) => {
        const command = line.replace(/^.*?\benvdata(\.js)? /, '').replace(/\s#.*$/, '');
        const words = command.split(/\s+/);
        const group = commands.some(
          (c) => c.path.length > 1 && c.path[0] === words[0] && c.path[1] === words[1],
        );
        return {
          line,
          path: words.slice(0, group ? 2 : 1).join(' '),
          options: [...new Set(command.match(/--[a-z][a-z-]*/g) ?? [])],
        };
      })
  );
}

describe('the command list of docs/commands.md and the commander definitions (`envdata --help`)', () => {
  it('lists every command, each with every one of its options', async () => {
    const listed = await listedCommands();
    const missing: string[] = [];
    for (const node of commands) {
      const path = node.path.join(' ');
      const lines = listed.filter((l) => l.path === path);
      if (lines.length === 0) {
        missing.push(`envdata ${path}`);
        continue;
      }
      for (const option of optionsOf(node)) {
        if (!lines.some((l) => l.options.includes(option)))
          missing.push(`envdata ${path} ${option}`);
      }
    }
    expect(missing, 'add these to the command list of docs/commands.md').toEqual([]);
  });

  it('lists only commands and options that exist', async () => {
    const unknown: string[] = [];
    for (const entry of await listedCommands()) {
      const node = commands.find((c) => c.path.join(' ') === entry.path);
      if (node === undefined) {
        unknown.push(`envdata ${entry.path} (${entry.line.trim()})`);
        continue;
      }
      for (const option of entry.options) {
        if (!optionsOf(node).includes(option)) unknown.push(`envdata ${entry.path} ${option}`);
      }
    }
    expect(unknown, 'docs/commands.md lists what `envdata --help` does not know').toEqual([]);
  });

  it('reads the definitions, not a copy of them', () => {
    expect(commands.map((c) => c.path.join(' '))).toEqual(
      expect.arrayContaining(['locations restore', 'backfill', 'status', 'completion']),
    );
    expect(optionsOf(commands.find((c) => c.path.join(' ') === 'backfill')!)).toContain(
      '--concurrency',
    );
  });
});
