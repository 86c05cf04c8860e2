import { createApp, type App } from '../app.js';
import type { Config } from '../config/config.js';
import { loadConfig } from '../config/load-config.js';
import type { CliIo } from './cli-io.js';

/** What every command receives: its I/O, the config (loaded on demand) and an app to use. */
export class CommandContext {
  private loaded: Config | undefined;
  /** Set by a command that finished but must report failure (exit 1). */
  exitCode = 0;

  constructor(readonly io: CliIo) {}

  /** Validates the environment; a bad value throws `CONFIG_INVALID` (exit 2). */
  get config(): Config {
    this.loaded ??= loadConfig(this.io.env, { isTty: Boolean(this.io.stderr.isTTY) });
    return this.loaded;
  }

  /** Runs `body` with an app built from the config and always closes it. */
  async withApp<T>(body: (app: App) => Promise<T>, config: Config = this.config): Promise<T> {
    const app = createApp(config);
    try {
      return await body(app);
    } finally {
      await app.close();
    }
  }

  print(line = ''): void {
    this.io.stdout.write(`${line}\n`);
  }
}
