import { CronExpressionParser } from 'cron-parser';
import type { Logger } from '../logging/create-logger.js';

/**
 * ENVDATA_EXPORT_CRON: `envdata export parquet` to ENVDATA_EXPORT_DIR at each firing, in the
 * scheduler's process (docs/export.md, "On a schedule"). Several schedulers may fire at once:
 * the export's advisory lock lets one write, the others log that one was running.
 */
export class ExportSchedule {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly options: {
      readonly cron: string;
      readonly dir: string;
      readonly databaseUrl: string;
      readonly logger: Logger;
    },
  ) {}

  start(): void {
    this.arm();
    this.options.logger.info(
      { cron: this.options.cron, dir: this.options.dir },
      'Parquet export scheduled (UTC)',
    );
  }

  private arm(): void {
    if (this.closed) return;
    const next = CronExpressionParser.parse(this.options.cron, { tz: 'UTC' }).next().getTime();
    // setTimeout takes at most 2^31-1 ms: a far firing re-arms on the way.
    const delay = Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1);
    this.timer = setTimeout(() => {
      if (Date.now() + 1000 < next) return this.arm();
      this.running = this.fire().finally(() => {
        this.running = undefined;
        this.arm();
      });
    }, delay);
    this.timer.unref();
  }

  private async fire(): Promise<void> {
    const { logger } = this.options;
    // DuckDB's binding is loaded at the first firing, never by a scheduler that exports nothing.
    const { ExportBusy, exportParquet } = await import('../export/export-parquet.js');
    try {
      const summary = await exportParquet({
        databaseUrl: this.options.databaseUrl,
        dir: this.options.dir,
      });
      logger.info(
        { dir: summary.dir, partitions: summary.written.length, rows: summary.rows },
        'Parquet export finished',
      );
    } catch (error) {
      if (error instanceof ExportBusy) logger.info('Parquet export skipped: another is running');
      else logger.error({ err: error }, 'Parquet export failed');
    }
  }

  /** Stops the firings; waits for an export under way. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
