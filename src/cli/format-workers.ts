import type { ConnectedWorker } from '../queue/list-workers.js';
import { formatDuration } from '../planner/estimate-plan.js';
import { createPaint, type Paint } from './create-paint.js';

/**
 * The workers of `envdata status`: how many are alive (by their heartbeat) with the jobs in
 * their hands, then one line per worker. A worker connected without a heartbeat (an envdata
 * older than heartbeats, or a process whose event loop is stuck) and one whose connection is gone
 * but whose last beat has not expired yet (killed, or its host unreachable) say so.
 */
export function formatWorkers(
  workers: readonly ConnectedWorker[],
  now = new Date(),
  paint: Paint = createPaint(false),
): string[] {
  const alive = workers.filter((w) => w.alive);
  const busy = alive.reduce((sum, w) => sum + (w.busy ?? 0), 0);
  const slots = alive.reduce((sum, w) => sum + w.concurrency, 0);
  const lines = [
    `workers alive: ${alive.length}` +
      (alive.length > 0 ? ` (busy with ${busy} of ${slots} job slots)` : '') +
      (workers.length > alive.length ? `, ${workers.length - alive.length} without heartbeat` : ''),
  ];
  for (const w of workers) {
    const who = `${w.host} pid ${w.pid}, concurrency ${w.concurrency}`;
    if (!w.alive) {
      lines.push(
        `  ${who}, connected ${formatDuration(w.ageSeconds * 1000)}, ` +
          paint(
            'yellow',
            'no heartbeat (an envdata without heartbeats, or its event loop is stuck)',
          ) +
          `, connection last active ${formatDuration(w.idleSeconds * 1000)} ago`,
      );
      continue;
    }
    const beat = formatDuration(now.getTime() - (w.lastHeartbeatAt?.getTime() ?? now.getTime()));
    lines.push(
      `  ${who}, busy ${w.busy ?? 0}, heartbeat ${beat} ago, ` +
        (w.connected
          ? `connected ${formatDuration(w.ageSeconds * 1000)}`
          : paint(
              'yellow',
              'its queue connection is closed (killed, or its host unreachable): gone once its heartbeat expires',
            )),
    );
  }
  return lines;
}
