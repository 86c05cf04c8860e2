import type { Uses } from '../runtime/app-resources.js';
import type { OutageMonitor } from '../lifecycle/outage-monitor.js';
import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { capQueuePause } from '../admission/queue-pause.js';

/**
 * A pause of every worker left in the queue longer than ENVDATA_MAX_PAUSE (set by an older
 * envdata, or under a higher setting) is shortened to it when a worker starts: a new worker
 * never sits out, nor extends, a pause it would not have set itself. Never throws.
 */
export async function capPauseAtStart(
  app: Uses<'config' | 'logger' | 'queues'>,
  outages: OutageMonitor,
): Promise<void> {
  const { maxPauseMs } = app.config.worker;
  try {
    const left = await capQueuePause(app.queues.queue(QUEUE_NAMES.ingest), maxPauseMs);
    if (left > 0) {
      app.logger.warn(
        { pausedForMs: left, maxPauseMs },
        'the queue held a pause of every worker longer than ENVDATA_MAX_PAUSE: shortened to it',
      );
    }
  } catch (error) {
    if (!outages.report(error)) {
      app.logger.warn({ err: error }, 'could not read the pause of the queue');
    }
  }
}
