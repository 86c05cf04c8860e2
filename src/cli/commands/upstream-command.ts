import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { printJsonDocument } from '../json/print-json-document.js';
import { parseDatasetOption } from '../parse-cli-values.js';

interface UpstreamOptions {
  dataset: string;
  json?: boolean;
}

/**
 * `envdata upstream`: the shapes the service's answers have had, and how each differs from the
 * one before it (docs/drift.md).
 */
export function registerUpstreamCommand(program: Command, context: CommandContext): void {
  program
    .command('upstream')
    .description(
      "List the shapes the service's answers have had per endpoint, with what changed from the one before (drift: keys added or gone, types or units changed)",
    )
    .option('--dataset <dataset>', 'pollen, weather or all', 'all')
    .option('--json', 'print one JSON document instead (shape: docs/json-output.md)')
    .action(async (options: UpstreamOptions) => {
      const datasets = parseDatasetOption(options.dataset);
      const [{ listUpstreamShapes }, { formatUpstreamShapes }] = await Promise.all([
        import('../../ledger/list-upstream-shapes.js'),
        import('../format-upstream-shapes.js'),
      ]);
      const entries = await context.withApp(
        (app) => listUpstreamShapes(app.db, datasets.length === 1 ? { dataset: datasets[0]! } : {}),
        context.config,
      );
      if (options.json) {
        const { toUpstreamJson } = await import('../json/upstream-json.js');
        printJsonDocument(context, toUpstreamJson(entries, new Date()));
        return;
      }
      for (const line of formatUpstreamShapes(entries)) context.print(line);
    });
}
