import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';

export function registerDbtSourcesCommand(program: Command, context: CommandContext): void {
  program
    .command('dbt-sources')
    .description(
      'Print a dbt sources.yml (dbt 1.10 or later) for schema analytics: every view and column with its description from the database, not_null/unique tests on the keys, and source freshness from the ledger',
    )
    .action(async () => {
      const { readAnalyticsViews } = await import('../../warehouse/read-analytics-views.js');
      const { dbtSources } = await import('../../warehouse/dbt-sources.js');
      // Loaded here: the commands that print no YAML never load it.
      const { Document } = await import('yaml');
      const catalog = await context.withApp(async (app) => readAnalyticsViews(app.db));
      // Each table states its freshness in full, not as an alias of the first.
      const document = new Document(dbtSources(catalog), { aliasDuplicateObjects: false });
      document.commentBefore =
        ' Written by `envdata dbt-sources` from the warehouse catalog: run it again after `envdata migrate`.';
      context.io.stdout.write(document.toString({ lineWidth: 0 }));
    });
}
