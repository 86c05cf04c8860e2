import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { printJsonDocument } from '../json/print-json-document.js';

/** Events listed at most. */
const LIMIT = 100;

/** `envdata lineage pending`: the OpenLineage events not delivered yet (docs/observability.md). */
export function registerLineageCommand(program: Command, context: CommandContext): void {
  const lineage = program
    .command('lineage')
    .description('OpenLineage events sent to ENVDATA_OPENLINEAGE_URL (see docs/observability.md)');
  lineage
    .command('pending')
    .description(
      'List the OpenLineage events the receiver has not taken yet, oldest first, with the last error of each',
    )
    .option('--json', 'print one JSON document instead (shape: docs/json-output.md)')
    .action(async (options: { json?: boolean }) => {
      const { undeliveredLineage } = await import('../../ledger/lineage-deliveries.js');
      const undelivered = await context.withApp(
        (app) => undeliveredLineage(app.db, LIMIT),
        context.config,
      );
      const receiverSet = context.config.lineage !== undefined;
      if (options.json) {
        const { toLineagePendingJson } = await import('../json/lineage-pending-json.js');
        printJsonDocument(context, toLineagePendingJson(undelivered, receiverSet, new Date()));
        return;
      }
      if (undelivered.total === 0) {
        context.print('every lineage event was delivered');
        return;
      }
      context.print(
        `${undelivered.total} lineage event(s) not delivered yet${receiverSet ? '' : ' (ENVDATA_OPENLINEAGE_URL is not set here)'}:`,
      );
      for (const e of undelivered.events) {
        const { runId, rebuildId, attempt, eventType, kind } = e.snapshot;
        // A rebuild writes no run: its kind and the UUID of its invocation name it.
        const what =
          rebuildId === undefined ? `run ${runId} attempt ${attempt}` : `${kind} ${rebuildId}`;
        context.print(
          `  ${what} ${eventType}, recorded ${e.recordedAt.toISOString()}: ${
            e.attempts === 0
              ? 'not tried yet'
              : `${e.attempts} attempt(s), last ${e.lastError ?? 'error unknown'}`
          }`,
        );
      }
    });
}
