import { Argument, type Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { completionTree } from '../completion/completion-tree.js';
import { renderBashCompletion } from '../completion/render-bash-completion.js';
import { renderZshCompletion } from '../completion/render-zsh-completion.js';

const RENDERERS = { bash: renderBashCompletion, zsh: renderZshCompletion } as const;

export function registerCompletionCommand(program: Command, context: CommandContext): void {
  program
    .command('completion')
    .description(
      'Print a shell completion script for envdata (commands, subcommands and options), generated from its command definitions',
    )
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(Object.keys(RENDERERS)))
    .addHelpText(
      'after',
      `
Load it in every new shell:
  bash (~/.bashrc):              source <(envdata completion bash)
  zsh (~/.zshrc, after compinit): source <(envdata completion zsh)
It completes the command \`envdata\` (installed with npm install -g or npm link), not \`npx envdata\`.`,
    )
    .action((shell: keyof typeof RENDERERS) => {
      context.io.stdout.write(RENDERERS[shell](completionTree(program)));
    });
}
