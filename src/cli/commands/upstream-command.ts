import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { printJsonDocument } from '../json/print-json-document.js';
import { parseDatasetOption } from '../parse-cli-values.js';
import { usageError } from '../usage-error.js';

interface UpstreamOptions {
  dataset: string;
  json?: boolean;
}

/**
 * `envdata upstream`: the shapes the service's answers have had, and how each differs from the
 * one before it (docs/drift.md).
 */
export function registerUpstreamCommand(program: Command, context: CommandContext): void {
  const upstream = program
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
  upstream
    .command('accept')
    .description("Accept a shape of the service's answers (its digest, from envdata upstream)")
    .argument('<shape>', 'the 12-hex-digit digest envdata upstream lists')
    .action(async (shape: string) => {
      if (!/^[0-9a-f]{12}$/.test(shape)) {
        throw usageError(`SHAPE must be the 12 hex digits envdata upstream lists (got "${shape}")`);
      }
      const { acceptUpstreamShape } = await import('../../ledger/accept-upstream-shape.js');
      const outcome = await context.withApp(
        (app) => acceptUpstreamShape(app.db, shape),
        context.config,
      );
      if (outcome === 'unknown') {
        context.io.stderr.write(`no shape ${shape}: envdata upstream lists them\n`);
        context.exitCode = 2;
        return;
      }
      context.print(
        outcome === 'newly' ? `accepted shape ${shape}` : `shape ${shape} was accepted already`,
      );
    });
}
