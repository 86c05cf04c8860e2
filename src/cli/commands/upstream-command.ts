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
    .description(
      "Accept shapes of the service's answers (their digests, from envdata upstream): hours held under them land from the archive with no call, and a dataset they froze resumes",
    )
    .argument('<shape...>', 'the 12-hex-digit digests envdata upstream lists')
    .action(async (shapes: string[]) => {
      const bad = shapes.find((shape) => !/^[0-9a-f]{12}$/.test(shape));
      if (bad !== undefined) {
        throw usageError(`SHAPE must be the 12 hex digits envdata upstream lists (got "${bad}")`);
      }
      const { acceptShapes } = await import('../../ingest/accept-shapes.js');
      const outcome = await context.withApp((app) => acceptShapes(app, shapes), context.config);
      for (const [shape, was] of Object.entries(outcome.shapes)) {
        if (was === 'unknown') {
          context.io.stderr.write(`no shape ${shape}: envdata upstream lists them\n`);
          context.exitCode = 2;
          continue;
        }
        context.print(
          was === 'newly' ? `accepted shape ${shape}` : `shape ${shape} was accepted already`,
        );
      }
      if (outcome.rebuiltAnswers > 0) {
        context.print(
          `${outcome.landedHours} held hour(s) landed from ${outcome.rebuiltAnswers} archived answer(s), no call made`,
        );
      }
      if (outcome.notArchived > 0) {
        context.print(
          `${outcome.notArchived} held answer(s) were not archived (ENVDATA_ARCHIVE_RAW=false): their hours stay holes; run the backfill over them again`,
        );
      }
      if (outcome.dispatched > 0) {
        context.print(`${outcome.dispatched} waiting chunk(s) dispatched again`);
      }
    });
}
