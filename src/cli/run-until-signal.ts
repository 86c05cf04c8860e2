import type { App, StartOptions } from '../app.js';
import { shutdownSignal } from './shutdown-signal.js';

export interface RunUntilSignalMessages {
  /** Logged with the first signal. */
  readonly stopping: string;
  /** Logged once everything is closed. */
  readonly stopped: string;
  /** Called once the components are started (to log what runs). */
  readonly started?: () => void;
}

/**
 * A long-running command (`envdata worker`, `envdata scheduler`): starts the app's components,
 * waits for SIGTERM or SIGINT, then stops the app within ENVDATA_SHUTDOWN_TIMEOUT_MS. A second
 * signal exits at once.
 */
export async function runUntilSignal(
  app: App,
  components: StartOptions,
  messages: RunUntilSignalMessages,
): Promise<void> {
  // Listening before starting: a signal during start-up stops the process gracefully too.
  const stop = shutdownSignal((signal) => app.logger.info({ signal }, messages.stopping));
  // Every long-running process delivers alerts and checks their conditions.
  await app.start({ notifications: true, ...components });
  messages.started?.();
  const signal = await stop;
  await app.stop();
  app.logger.info({ signal }, messages.stopped);
}
