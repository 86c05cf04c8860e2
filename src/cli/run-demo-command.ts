import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { loadConfig } from '../config/load-config.js';
import { runDemo } from '../demo/run-demo.js';
import { EnvdataError } from '../errors/envdata-error.js';
import { DEMO_API_KEY } from '../simulator/simulator-options.js';
import { ensureDatabase } from '../warehouse/ensure-database.js';
import { chooseDemoServices, type DemoServices } from './choose-demo-services.js';
import type { CommandContext } from './command-context.js';
import { ENVDATA_BIN } from './envdata-bin.js';
import { envdataShellCommand } from './envdata-shell-command.js';
import { watchRun } from './watch-run.js';

/** Where `envdata simulate` listens by default, and ENVDATA_BASE_URL's default. */
const SIMULATOR_URL = 'http://127.0.0.1:8787';

/**
 * `envdata demo [--weather-years N]`: the simulator in a process of its own, the services the
 * environment names (or their fallbacks: `chooseDemoServices`), then `runDemo`, and the commands
 * to go on with.
 *
 * What it prints is for a person trying envdata for the first time: a line before each slow step,
 * one line for the migrations, the progress of each backfill (a bar on a terminal, a line every
 * 10 s otherwise), never log objects. Logs are at `warn` unless LOG_LEVEL says otherwise.
 */
export async function runDemoCommand(
  context: CommandContext,
  options: { readonly weatherYears: number },
): Promise<void> {
  // Validate the environment first: a bad variable stops the demo before it starts anything.
  void context.config;
  const bin = ENVDATA_BIN;
  // The simulator gets a process (a core) of its own, as the real service would be elsewhere.
  // Started first: it comes up while the local PostgreSQL is created.
  const simulator = spawn(process.execPath, [bin, 'simulate', '--port', '0'], {
    env: { PATH: context.io.env.PATH ?? '', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(simulator, 'exit');
  const firstLine = Promise.race([
    once(createInterface({ input: simulator.stdout }), 'line') as Promise<[string]>,
    exited.then(([code]) => [`it exited (${String(code)})`] as [string]),
  ]);
  // Awaited below; a failure before then (the local PostgreSQL) must not leave it unhandled.
  firstLine.catch(() => undefined);
  try {
    // On a bare machine: the local PostgreSQL, and the queue in it (one line each).
    const services = await chooseDemoServices(context);
    const [line] = await firstLine;
    const url = /listening at (http:\/\/\S+)/.exec(line)?.[1];
    if (!url) throw new EnvdataError('INTERNAL', `the simulator did not start: ${line}`);
    const config = loadConfig(
      {
        ENVDATA_WORKER_CONCURRENCY: '32',
        // Log objects would interleave with what the demo prints: only warnings, unless asked.
        LOG_LEVEL: 'warn',
        ...context.io.env,
        ...services.env,
        ENVDATA_BASE_URL: url,
        ENVDATA_API_KEY: DEMO_API_KEY,
        // The simulator has no rate limit; a real plan's limit would only slow the demo.
        ENVDATA_RATE_LIMIT: 'off',
      },
      { isTty: Boolean(context.io.stderr.isTTY) },
    );
    context.print(`simulator of the Environmental Data Service listening at ${url}`);
    // A queue in Postgres is checked by connecting to the database, which the demo may still
    // have to create (runDemo migrates it): create it first.
    if (config.queueBackend === 'postgres') await ensureDatabase(config.databaseUrl);
    const started = Date.now();
    const outcome = await context.withApp(
      (app) =>
        runDemo(app, {
          days: { pollen: 92, weather: options.weatherYears * 365 },
          print: (l) => context.print(l),
          watch: (runId) =>
            watchRun(app.db, runId, {
              statusLine: context.statusLine,
              logger: app.logger,
              print: (l) => context.print(`  ${l}`),
              outages: app.outages,
              config: app.config,
            }),
        }),
      config,
      { migrated: false, queue: true },
    );
    const stats = (await (await fetch(`${url}/__admin/stats`)).json()) as { total: number };
    context.print('');
    context.print(
      `${stats.total} API call(s), ${outcome.rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
        'run it again: the ledger fetches nothing twice',
    );
    for (const l of nextSteps(services, await envdataShellCommand(context.io.env, bin))) {
      context.print(l);
    }
    if (outcome.failed > 0) context.exitCode = 1;
  } finally {
    simulator.kill('SIGTERM');
    await exited;
  }
}

/**
 * The commands to go on with the same data, as they run from the user's shell (`envdata`, or
 * `node bin/envdata.js` in a clone): a simulator that keeps running (the demo's stops with it),
 * the variables to export (the simulator's demo key, never a real one), and what to try. Lines
 * of commands carry no comments, so that they can be pasted as they are (zsh takes `#` as an
 * argument); the explanations follow them.
 */
function nextSteps(services: DemoServices, envdata: string): string[] {
  const lines = [
    '',
    'To go on with the same data, run these in your shell:',
    `  ${envdata} simulate &`,
    ...services.exports,
    `  export ENVDATA_BASE_URL=${SIMULATOR_URL} ENVDATA_API_KEY=${DEMO_API_KEY}`,
    `  ${envdata} status`,
    `  ${envdata} locations add --place Paris`,
    `\`simulate &\` keeps a simulator running at ${SIMULATOR_URL} (\`kill %%\` stops it); ${DEMO_API_KEY} is its demo key, not a real one. ` +
      `\`${envdata} serve\` opens the console; README.md says what else to try.`,
  ];
  if (services.localDir !== undefined) {
    lines.push(
      `\`${envdata} local stop\` stops the local PostgreSQL (its data stays in ${services.localDir}).`,
    );
  }
  return lines;
}
