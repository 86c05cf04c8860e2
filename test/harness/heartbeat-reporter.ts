import type { Reporter, TestModule } from 'vitest/node';

export interface HeartbeatOptions {
  /** Silence after which a file still running is named, and between two such lines (60 s). */
  readonly quietMs?: number;
  /** How often the silence is checked (5 s). */
  readonly checkMs?: number;
  /** The clock (Date.now). */
  readonly now?: () => number;
  /** Where a line goes (standard output). */
  readonly write?: (line: string) => void;
}

/** The reporter, and its check, which its timer runs (for a test to run it on a fake clock). */
export type HeartbeatReporter = Reporter & { beat(): void };

/**
 * A line while the run has printed nothing for a minute: `… still running: test/x.test.ts
 * (2 min)`, for each file that has run that long, then again every minute of silence. On two
 * cores one slow file can hold the only fork for minutes, and the default reporter prints only
 * when a file ends: without it the run looked stalled. Quiet otherwise; its timer never keeps the
 * process alive and stops with the run.
 */
export function heartbeatReporter(options: HeartbeatOptions = {}): HeartbeatReporter {
  const quietMs = options.quietMs ?? 60_000;
  const now = options.now ?? Date.now;
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`));
  /** The files running, by their task id: name and start. */
  const running = new Map<string, { name: string; since: number }>();
  let printed = now();
  let timer: NodeJS.Timeout | undefined;

  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const beat = () => {
    const at = now();
    if (at - printed < quietMs) return;
    const long = [...running.values()].filter((file) => at - file.since >= quietMs);
    if (long.length === 0) return;
    const names = long.map(
      (file) => `${file.name} (${Math.floor((at - file.since) / 60_000)} min)`,
    );
    write(`… still running: ${names.join(', ')}`);
    printed = at;
  };

  return {
    beat,
    onTestRunStart() {
      stop();
      running.clear();
      printed = now();
      timer = setInterval(beat, options.checkMs ?? 5_000);
      timer.unref();
    },
    onTestModuleStart(module: TestModule) {
      const project = module.project.name;
      const name =
        project === '' ? module.relativeModuleId : `${module.relativeModuleId} [${project}]`;
      running.set(module.id, { name, since: now() });
    },
    onTestModuleEnd(module: TestModule) {
      running.delete(module.id);
      // The default reporter prints a line per file that ends.
      printed = now();
    },
    onUserConsoleLog() {
      printed = now();
    },
    onTestRunEnd() {
      stop();
      running.clear();
    },
  };
}
