import type { Command } from 'commander';

/** A command or subcommand completion can offer. */
export interface CompletionCommand {
  readonly name: string;
  readonly description: string;
}

/** An option of a command: its spellings (`-h`, `--help`) and whether a value follows it. */
export interface CompletionOption {
  readonly flags: readonly string[];
  readonly takesValue: boolean;
  readonly description: string;
}

/** What may follow one command on the command line. */
export interface CompletionNode {
  /** Command names below the program: `[]` for `envdata`, `['locations', 'add']`. */
  readonly path: readonly string[];
  readonly commands: readonly CompletionCommand[];
  readonly options: readonly CompletionOption[];
  /** Its arguments are file names (`locations import <file>`): complete them from the disk. */
  readonly fileArguments: boolean;
  /** The values its arguments may take, when they are a fixed list (`completion <bash|zsh>`). */
  readonly argumentChoices: readonly string[];
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const FLAG = /^--?[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * Every command of `program` with its subcommands and options, as `--help` shows them (commander's
 * own `visibleCommands` and `visibleOptions`, the implicit `help` command included): the one
 * source of the completion scripts, so they cannot drift from the definitions.
 */
export function completionTree(program: Command): CompletionNode[] {
  const help = program.createHelp();
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: readonly string[], siblings: readonly Command[]) => {
    const children = help.visibleCommands(command);
    // `envdata help COMMAND`, `envdata locations help COMMAND`: the commands beside it.
    const offered =
      command.name() === 'help' && path.length > 0
        ? siblings.filter((c) => c !== command)
        : children;
    nodes.push({
      path,
      commands: offered.map((c) => ({
        name: checked(NAME, c.name()),
        description: c.description(),
      })),
      options: help.visibleOptions(command).map((o) => ({
        flags: [o.short, o.long]
          .filter((f): f is string => f !== undefined)
          .map((f) => checked(FLAG, f)),
        takesValue: o.required || o.optional,
        description: o.description,
      })),
      fileArguments: command.registeredArguments.some((a) => a.name() === 'file'),
      argumentChoices: command.registeredArguments.flatMap((a) =>
        (a.argChoices ?? []).map((choice) => checked(NAME, choice)),
      ),
    });
    for (const child of children) visit(child, [...path, child.name()], children);
  };
  visit(program, [], []);
  return nodes;
}

/** Names and flags go into shell scripts unquoted: only plain characters are allowed. */
function checked(pattern: RegExp, text: string): string {
  if (!pattern.test(text)) throw new Error(`"${text}" cannot be completed safely`);
  return text;
}
