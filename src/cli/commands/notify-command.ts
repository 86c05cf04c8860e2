import { hostname } from 'node:os';
import type { Command } from 'commander';
import type { CommandContext } from '../command-context.js';
import { usageError } from '../usage-error.js';

/** How long `envdata notify test` waits for each target. */
const TEST_TIMEOUT_MS = 10_000;

export function registerNotifyCommand(program: Command, context: CommandContext): void {
  const notify = program
    .command('notify')
    .description('Alerts posted to ENVDATA_NOTIFY_URL (see docs/alerts.md)');
  notify
    .command('test')
    .description(
      'Post one test alert to every target of ENVDATA_NOTIFY_URL now and print each answer; exit 1 if any target did not acknowledge it',
    )
    .action(async () => {
      const { targets, format } = context.config.notify;
      if (targets.length === 0) {
        throw usageError(
          'ENVDATA_NOTIFY_URL is not set: set it to one or more http(s) URLs (a Slack incoming webhook, say), comma or space separated',
        );
      }
      const [{ notificationBody }, { describeAnswer }, { postNotification }] = await Promise.all([
        import('../../notify/notification-document.js'),
        import('../../notify/notification-dispatcher.js'),
        import('../../notify/post-notification.js'),
      ]);
      const body = notificationBody(
        { id: 'test', event: 'test', at: new Date(), details: { host: hostname() } },
        format,
      );
      const answers = await Promise.all(
        targets.map((target) => postNotification(target, body, TEST_TIMEOUT_MS)),
      );
      answers.forEach((answer, i) => {
        const target = targets[i]!;
        context.print(
          `${target.label}: ${describeAnswer(answer)}${answer.ok ? ' (delivered)' : ' (FAILED)'}`,
        );
      });
      const failed = answers.filter((a) => !a.ok).length;
      if (failed > 0) {
        context.io.stderr.write(
          `${failed} of ${targets.length} target(s) did not acknowledge the test alert: check the URL and that the receiver accepts ${format === 'slack' ? '{"text": …}' : 'the json document'}\n`,
        );
        context.exitCode = 1;
      }
    });
}
