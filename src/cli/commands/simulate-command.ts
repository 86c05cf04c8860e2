import type { Command } from 'commander';
import { DEMO_API_KEY } from '../../simulator/simulator-options.js';
import type { CommandContext } from '../command-context.js';
import { parseWholeNumber } from '../parse-cli-values.js';

export function registerSimulateCommand(program: Command, context: CommandContext): void {
  program
    .command('simulate')
    .description(
      'Serve the Environmental Data Service simulator (all 13 endpoints, keys, limits, faults; see ENVDATA_SIM_*) until SIGINT/SIGTERM; beyond loopback its admin endpoint needs ENVDATA_SIM_ADMIN_TOKEN',
    )
    .option('--port <port>', 'TCP port (default ENVDATA_SIM_PORT, 8787; 0 = any free port)')
    .action(async (options: { port?: string }) => {
      const port =
        options.port === undefined
          ? undefined
          : parseWholeNumber('--port', options.port, { min: 0, max: 65_535 }, 'a port number');
      const config = context.config;
      const [{ parseSimulatorEnvironment }, { createLogger }, { startSimulator }] =
        await Promise.all([
          import('../simulator-environment.js'),
          import('../../logging/create-logger.js'),
          import('../../simulator/start-simulator.js'),
        ]);
      const simOptions = parseSimulatorEnvironment(context.io.env);
      const logger = createLogger({ level: config.log.level, format: config.log.format });
      const simulator = await startSimulator({
        ...simOptions,
        ...(port !== undefined && { port }),
        logger: logger.child({ component: 'simulator' }),
      });
      // Listen for the signal before saying where we listen: whoever reads that line may stop us.
      const stopped = new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      const keys = Object.keys(simulator.options().keys);
      const admin = !simOptions.admin
        ? 'admin off'
        : `admin at ${simulator.url}/__admin/stats${simOptions.adminToken === undefined ? '' : ' (token required)'}`;
      context.print(
        `simulator listening at ${simulator.url} — ${keys.includes(DEMO_API_KEY) ? `demo key ${DEMO_API_KEY}; ` : ''}${admin}; Ctrl-C stops it`,
      );
      await stopped;
      await simulator.close();
      context.print(`simulator stopped after ${simulator.stats().total} request(s)`);
    });
}
