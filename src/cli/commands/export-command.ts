import path from 'node:path';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { printJsonDocument } from '../json/print-json-document.js';
import { usageError } from '../usage-error.js';

interface ExportOptions {
  to?: string;
  full?: boolean;
  json?: boolean;
}

/** `--to DIR`, else ENVDATA_EXPORT_DIR; a usage error when neither. */
function exportDir(context: CommandContext, options: ExportOptions): string {
  const dir = options.to ?? context.io.env.ENVDATA_EXPORT_DIR?.trim();
  if (!dir) throw usageError('required: --to DIR (or ENVDATA_EXPORT_DIR)');
  return path.resolve(dir);
}

/** The live line of a long export or verify, on a terminal only. */
function progressLine(context: CommandContext, what: string) {
  const started = Date.now();
  return (done: number, total: number, partition: string, rows?: number) => {
    const fraction = total === 0 ? 1 : done / total;
    const filled = Math.round(fraction * 30);
    const seconds = (Date.now() - started) / 1000;
    context.statusLine?.show(
      `${what} ${'\u2588'.repeat(filled)}${'\u2591'.repeat(30 - filled)} ${Math.floor(fraction * 100)}% | ${done}/${total} partitions | ${partition}` +
        (rows === undefined
          ? ''
          : ` | ${rows} rows | ${Math.round(rows / Math.max(seconds, 0.001))} rows/s`),
    );
  };
}

/**
 * `envdata export parquet|verify|query --to DIR` (docs/export.md): the warehouse as Parquet
 * files, incremental and verified, and SQL over them with DuckDB.
 */
export function registerExportCommands(program: Command, context: CommandContext): void {
  const group = program
    .command('export')
    .description(
      'The warehouse as Parquet files partitioned dataset=/year=/month= (Hive): write them incrementally, verify them against the warehouse, query them with DuckDB (docs/export.md)',
    );
  group
    .command('parquet')
    .description(
      'Write the partitions that changed since the last export (all of them the first time) as Parquet files, each renamed into place, and the manifest',
    )
    .option('--to <dir>', 'the export’s directory (else ENVDATA_EXPORT_DIR)')
    .option('--full', 'rewrite every partition, whatever changed')
    .option('--json', 'print a JSON summary (docs/json-output.md)')
    .action(async (options: ExportOptions) => {
      const dir = exportDir(context, options);
      const config = context.config;
      const [{ exportParquet, ExportBusy }, { toExportJson }] = await Promise.all([
        import('../../export/export-parquet.js'),
        import('../json/export-json.js'),
      ]);
      const draw = progressLine(context, 'export');
      let summary;
      try {
        summary = await context.withApp(
          () =>
            exportParquet({
              databaseUrl: config.databaseUrl,
              dir,
              ...(options.full && { full: true }),
              onProgress: (p) => draw(p.done, p.total, p.partition, p.rows),
            }),
          config,
        );
      } catch (error) {
        if (error instanceof ExportBusy) {
          context.io.stderr.write(`envdata: ${error.message}\n`);
          context.exitCode = 1;
          return;
        }
        throw error;
      } finally {
        context.statusLine?.release();
      }
      if (options.json) {
        printJsonDocument(context, toExportJson(summary, new Date()));
        return;
      }
      context.print(
        summary.written.length === 0 && summary.removed.length === 0
          ? `nothing changed since the last export: ${summary.unchanged} partition(s) in ${dir}`
          : `wrote ${summary.written.length} partition(s), ${summary.rows} rows, ${summary.bytes} bytes to ${dir}` +
              (summary.removed.length ? `; removed ${summary.removed.join(', ')}` : '') +
              `; ${summary.unchanged} unchanged`,
      );
    });
  group
    .command('verify')
    .description(
      "Recompute every partition's count and digest from its file (DuckDB) and from the warehouse; exit 1 naming the first partition that differs",
    )
    .option('--to <dir>', 'the export’s directory (else ENVDATA_EXPORT_DIR)')
    .option('--json', 'print a JSON document (docs/json-output.md)')
    .action(async (options: ExportOptions) => {
      const dir = exportDir(context, options);
      const config = context.config;
      const [{ verifyExport }, { toExportVerifyJson }] = await Promise.all([
        import('../../export/verify-export.js'),
        import('../json/export-json.js'),
      ]);
      const draw = progressLine(context, 'verify');
      let result;
      try {
        result = await context.withApp(
          () =>
            verifyExport({
              databaseUrl: config.databaseUrl,
              dir,
              onProgress: (done, total, partition) => draw(done, total, partition),
            }),
          config,
        );
      } finally {
        context.statusLine?.release();
      }
      if (result.difference) context.exitCode = 1;
      if (options.json) {
        printJsonDocument(context, toExportVerifyJson(dir, result, new Date()));
        return;
      }
      if (result.difference) {
        const d = result.difference;
        context.io.stderr.write(`envdata: ${d.partition} (${d.file}) differs: ${d.reason}\n`);
        return;
      }
      context.print(
        `verified ${result.partitions} partition(s), ${result.rows} rows: files, manifest and warehouse agree`,
      );
    });
  group
    .command('query <sql>')
    .description(
      'Run SQL with DuckDB over the files: one view per dataset (weather_hourly, pollen_hourly, pollen_species_hourly, weather_daily, pollen_daily, locations), no database needed',
    )
    .option('--to <dir>', 'the export’s directory (else ENVDATA_EXPORT_DIR)')
    .option('--json', 'print the rows as a JSON array')
    .action(async (text: string, options: ExportOptions) => {
      const dir = exportDir(context, options);
      const { queryExport } = await import('../../export/query-export.js');
      let result;
      try {
        result = await queryExport(dir, text);
      } catch (error) {
        throw usageError(`DuckDB: ${(error as Error).message.split('\n')[0]}`);
      }
      if (options.json) {
        context.io.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
        return;
      }
      context.print(result.columns.join('\t'));
      for (const row of result.rows) {
        context.print(result.columns.map((c) => formatCell(row[c])).join('\t'));
      }
    });
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
