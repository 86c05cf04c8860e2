import { Command, type ParseOptionsResult } from 'commander';
import { didYouMean } from '../errors/did-you-mean.js';

/** The flags that ask a command for its help (commander's own, not declared as options). */
const HELP_FLAGS: ReadonlySet<string> = new Set(['-h', '--help']);

/**
 * A commander command that names the typo first. Commander checks required options before
 * unknown ones, so `backfill --datset pollen` said "required option '--dataset' not specified";
 * and an unknown command followed by `--help` printed the parent's help with exit 0. Here the
 * options are read, then an unknown command (`frobnicate --help`) or an unknown option of a command
 * without subcommands (`--datset`) is refused at once, exit 2, with the closest known names.
 */
export class EnvdataCommand extends Command {
  override createCommand(name?: string): EnvdataCommand {
    return new EnvdataCommand(name);
  }

  /** On the program: the command the line names (`locations add`), found when it is read. */
  private named: Command | undefined;

  override parseOptions(argv: string[]): ParseOptionsResult {
    const parsed = super.parseOptions(argv);
    const root = rootOf(this);
    // The program reads the whole line: its operands are the command path (`locations add`).
    if (root === this) this.named = namedCommand(this, parsed.operands);
    // The named command refuses an unknown option before commander checks required ones.
    const named = root instanceof EnvdataCommand ? root.named : undefined;
    if (named === this && !parsed.unknown.some((a) => HELP_FLAGS.has(a))) {
      const flag = parsed.unknown[0];
      if (flag !== undefined && flag.startsWith('-') && flag !== '-') this.refuseOption(flag);
    }
    return parsed;
  }

  /** `--datset pollen`: named before any missing required option, with the closest flags. */
  private refuseOption(arg: string): void {
    const flag = arg.split('=')[0]!;
    const flags = this.createHelp()
      .visibleOptions(this)
      .flatMap((o) => (o.long === undefined ? [] : [o.long]));
    const suggestion = flag.startsWith('--') ? didYouMean(flag, flags) : '';
    this.error(`error: unknown option '${flag}'${suggestion}`, {
      code: 'commander.unknownOption',
      exitCode: 2,
    });
  }
}

/**
 * Follows `operands` down from `program` (`locations add`, `help locations add`) to the command
 * they name, and refuses the first name that is no command where one is expected (`frobnicate`,
 * `locations ad`).
 */
function namedCommand(program: Command, operands: readonly string[]): Command {
  let command = program;
  for (const name of operands) {
    if (command.commands.length === 0 || command.registeredArguments.length > 0) return command;
    const found = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (found) {
      command = found;
      continue;
    }
    // `help` (commander's own command) names the command whose help it shows.
    if (name === 'help') continue;
    const visible = command
      .createHelp()
      .visibleCommands(command)
      .map((c) => c.name())
      .filter((n) => n !== 'help');
    command.error(`error: unknown command '${name}'${didYouMean(name, visible)}`, {
      code: 'commander.unknownCommand',
      exitCode: 2,
    });
  }
  return command;
}

/** The program a command belongs to. */
function rootOf(command: Command): Command {
  return command.parent === null ? command : rootOf(command.parent);
}
