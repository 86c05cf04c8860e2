import type { Command } from 'commander';
import { requireApiKey } from '../../config/require-api-key.js';
import { isEnvdataError } from '../../errors/envdata-error.js';
import { errorCode } from '../../errors/pg-errors.js';
import type { App } from '../../app.js';
import type { DeclaredFile } from '../../declared/declared-file.js';
import type { DeclaredPlan } from '../../declared/declared-plan.js';
import type { ResolvedLocations } from '../../declared/resolve-declared-locations.js';
import { allowOverBudgetOption } from '../allow-over-budget-option.js';
import type { CommandContext } from '../command-context.js';
import { confirm } from '../confirm.js';
import { printJsonDocument } from '../json/print-json-document.js';
import { parseConcurrency } from '../parse-cli-values.js';
import { usageError } from '../usage-error.js';

const DEFAULT_FILE = 'envdata.yaml';

const FILE_HELP = `
The file (docs/envdata.md; JSON Schema: docs/envdata.schema.json):
  version: 1
  locations:
    - { name: Berlin, lat: 52.52, lng: 13.405 }       # a point, known by its name
    - { place: Valencia, country: ES }                 # a place, geocoded once
    - { file: alps.csv, group: alps }                  # as \`locations import\` reads it
  datasets:
    pollen: { since: 2016-01-01, groups: { alps: { since: -2y } } }
    weather: { since: -30d }                           # back from now

A bad file exits 2 listing every problem with its line and column; nothing is written.`;

interface PlanOptions {
  file: string;
  json?: boolean;
}

interface ApplyOptions {
  file: string;
  yes?: boolean;
  wait?: boolean;
  concurrency?: string;
  allowOverBudget?: boolean;
}

/** `envdata plan`, `envdata apply` and `envdata export-config`: the warehouse as declared. */
export function registerDeclaredCommands(program: Command, context: CommandContext): void {
  program
    .command('plan')
    .description(
      'Compare envdata.yaml with the warehouse and print what `envdata apply` would do; writes nothing',
    )
    .option('-f, --file <file>', 'the declared file', DEFAULT_FILE)
    .option('--json', 'print one JSON document instead (shape: docs/json-output.md)')
    .addHelpText('after', FILE_HELP)
    .action(async (options: PlanOptions) => {
      const file = await readFile(context, options.file);
      if (file === undefined) return;
      await context.withApp(async (app) => {
        const resolved = await resolve(context, app, file);
        const plan = resolved && (await makePlan(context, app, file, resolved, false));
        if (plan === undefined) return;
        await printPlan(context, app, plan, options.json ?? false);
        if (!options.json && (await overBudget(app, plan))) {
          const { formatOverBudgetNote } = await import('../format-over-budget-note.js');
          context.print(`  ${formatOverBudgetNote('apply', 'refused', undefined)}`);
        }
      });
    });

  program
    .command('apply')
    .description(
      'Do what `envdata plan` shows: the locations in one transaction, then one backfill run for the missing history',
    )
    .option('-f, --file <file>', 'the declared file', DEFAULT_FILE)
    .option('-y, --yes', 'apply without asking (required when not on a terminal)')
    .option(
      '--wait',
      'block until the run is finished, with progress and a local worker; exit 1 if chunks failed',
    )
    .option('--concurrency <n>', 'with --wait: chunks in flight in the local worker')
    .addOption(allowOverBudgetOption())
    .addHelpText('after', FILE_HELP)
    .action(async (options: ApplyOptions) => {
      const concurrency = parseConcurrency(options.concurrency, context.config.worker.concurrency);
      const file = await readFile(context, options.file);
      if (file === undefined) return;
      const { hasChanges } = await import('../../declared/declared-plan.js');
      await context.withApp(
        async (app) => {
          const resolved = await resolve(context, app, file);
          const shown = resolved && (await makePlan(context, app, file, resolved, false));
          if (shown === undefined) return;
          if (!hasChanges(shown)) {
            // Nothing to add or buy; a since narrowed or a group renamed is still what is declared.
            const { storeDeclaration } = await import('../../declared/store-declaration.js');
            await storeDeclaration(app.db, file.datasets, resolved!.wanted);
            await applyNothingNew(context, app, shown, options.wait, concurrency);
            return;
          }
          await printPlan(context, app, shown, false);
          // The money guard of every command that spends: refused before anything is asked or written.
          const { refuseOverBudget } = await import('../refuse-over-budget.js');
          const spending = {
            what: `applying ${file.fileName}`,
            narrow: `Declare less in ${file.fileName} (a later since, fewer locations)`,
            calls: () => Promise.resolve(shown.estimate.calls),
          };
          const cost = await refuseOverBudget(app, spending, options.allowOverBudget);
          if (!options.yes) {
            if (!process.stdin.isTTY) {
              throw usageError(
                'apply changes the warehouse: add --yes to confirm (nothing was done)',
              );
            }
            if (!(await confirm(process.stdin, context.io.stderr, 'Apply this plan?'))) {
              throw usageError('nothing was done (answer y to apply)');
            }
          }
          if (shown.estimate.chunks > 0) requireApiKey(context.config);
          // On a terminal the operator approved this plan: apply refuses to do anything else.
          const expected = options.yes ? undefined : shown;
          const applied = await makePlan(context, app, file, resolved!, true, expected);
          if (applied === undefined) return;
          if (!hasChanges(applied)) {
            context.print('no changes: another apply made them meanwhile');
            if (options.wait) await followOwed(context, app, applied, undefined, concurrency);
            return;
          }
          context.print(
            `applied ${file.fileName} (digest ${file.digest.slice(0, 12)}): ` +
              `${applied.add.length} added, ${applied.retire.length} retired, ${applied.restore.length} restored` +
              (applied.runId === undefined ? ', no history missing' : `, run ${applied.runId}`),
          );
          if (applied.runId !== undefined && cost?.overBudget) {
            const { formatOverBudgetNote } = await import('../format-over-budget-note.js');
            const budgetCalls = context.config.quota.budgetPerMonth;
            context.print(`  ${formatOverBudgetNote('apply', 'started', budgetCalls)}`);
          }
          if (!options.wait) {
            if (applied.runId === undefined) return;
            context.print(
              `dispatched; workers (\`envdata worker\`) do the rest — follow with \`envdata status ${applied.runId}\``,
            );
            return;
          }
          await followOwed(context, app, applied, applied.runId, concurrency);
        },
        context.config,
        { queue: true },
      );
    });

  program
    .command('export-config')
    .description(
      'Write the declared file of the warehouse as it is: its active locations (points and places, with their groups), and per dataset the since last applied (else the first hour held or planned)',
    )
    .option('-f, --file <file>', 'where to write it; - for standard output', DEFAULT_FILE)
    .option('--force', 'overwrite the file if it exists')
    .action(async (options: { file: string; force?: boolean }) => {
      const { exportDeclaredState } = await import('../../declared/export-declared-state.js');
      const text = await context.withApp((app) => exportDeclaredState(app.db));
      if (options.file === '-') {
        context.io.stdout.write(text);
        return;
      }
      const { writeFile } = await import('node:fs/promises');
      try {
        await writeFile(options.file, text, { flag: options.force ? 'w' : 'wx' });
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
        throw usageError(
          `${options.file} exists: add --force to overwrite it, or give another -f FILE`,
        );
      }
      context.print(`wrote ${options.file}: review it, then \`envdata plan -f ${options.file}\``);
    });
}

/** The declared file, or `undefined` when it is invalid (its problems printed, exit 2). */
async function readFile(
  context: CommandContext,
  fileName: string,
): Promise<DeclaredFile | undefined> {
  const { readDeclaredFile } = await import('../../declared/read-declared-file.js');
  return refusedFile(context, () =>
    readDeclaredFile(fileName, {
      env: context.io.env,
      maxRows: context.config.locations.importMaxRows,
    }),
  );
}

/** The file's locations resolved (places geocoded), or `undefined` when refused (exit 2). */
async function resolve(
  context: CommandContext,
  app: App,
  file: DeclaredFile,
): Promise<ResolvedLocations | undefined> {
  const { resolveDeclared } = await import('../../declared/declared-state.js');
  const useService = Boolean(context.config.service.apiKey);
  return refusedFile(context, () => resolveDeclared(app, file, useService));
}

/** The plan, or apply done; `undefined` when the file asks for what envdata refuses (exit 2). */
async function makePlan(
  context: CommandContext,
  app: App,
  file: DeclaredFile,
  resolved: ResolvedLocations,
  apply: boolean,
  expected?: DeclaredPlan,
): Promise<DeclaredPlan | undefined> {
  const { declaredState } = await import('../../declared/declared-state.js');
  return refusedFile(context, () =>
    declaredState(app, file, resolved, { apply, ...(expected && { expected }) }),
  );
}

/** Runs `read`; a `VALIDATION_FAILED` is printed whole and the command exits 2. */
async function refusedFile<T>(
  context: CommandContext,
  read: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!isEnvdataError(error) || error.code !== 'VALIDATION_FAILED') throw error;
    context.io.stderr.write(`envdata: ${error.message}\n`);
    context.exitCode = 2;
    return undefined;
  }
}

async function printPlan(
  context: CommandContext,
  app: App,
  plan: DeclaredPlan,
  json: boolean,
): Promise<void> {
  const [{ readPlanCost }, { hasChanges }] = await Promise.all([
    import('../read-plan-cost.js'),
    import('../../declared/declared-plan.js'),
  ]);
  const config = context.config;
  const cost = await readPlanCost(app, plan.estimate.calls, 'other');
  const { readOwedRuns } = await import('../read-owed-runs.js');
  const owed = await readOwedRuns(app, plan);
  if (json) {
    const { toDeclaredPlanJson } = await import('../json/declared-plan-json.js');
    const windowHours = config.ingest.historyWindowHours;
    printJsonDocument(
      context,
      toDeclaredPlanJson(plan, windowHours, config.rateLimits, new Date(), cost, owed),
    );
    return;
  }
  for (const warning of plan.warnings) context.io.stderr.write(`envdata: warning: ${warning}\n`);
  const { formatOwedRuns } = await import('../format-owed-runs.js');
  if (!hasChanges(plan)) {
    context.print(
      owed.runs.length === 0
        ? `no changes: the warehouse is as ${plan.fileName} declares it`
        : `nothing new to plan, but ${formatOwedRuns(owed)}`,
    );
    return;
  }
  const { formatDeclaredPlan } = await import('../format-declared-plan.js');
  for (const line of formatDeclaredPlan(plan, cost, config.rateLimits)) context.print(line);
  if (owed.runs.length > 0) context.print(`besides, ${formatOwedRuns(owed)}`);
}

/**
 * `apply` when the plan changes nothing: "no changes" only when no run is owed either (an
 * earlier apply's, fetching or waiting for a worker); otherwise those runs are named and, with
 * `--wait`, worked here to their end as if this apply had started them.
 */
async function applyNothingNew(
  context: CommandContext,
  app: App,
  plan: DeclaredPlan,
  wait: boolean | undefined,
  concurrency: number,
): Promise<void> {
  const [{ readOwedRuns }, { formatOwedRuns }] = await Promise.all([
    import('../read-owed-runs.js'),
    import('../format-owed-runs.js'),
  ]);
  const owed = await readOwedRuns(app, plan);
  if (owed.runs.length === 0) {
    context.print(`no changes: the warehouse is as ${plan.fileName} declares it`);
    return;
  }
  context.print(`nothing new to apply, but ${formatOwedRuns(owed, wait)}`);
  if (wait) await followOwed(context, app, plan, undefined, concurrency);
}

/**
 * `apply --wait`: follows the runs the file is still owed (`DeclaredPlan.owed`) and the one
 * apply started, if any, to their end with a local worker (`followRuns`: exit 1 if one fails).
 * A paused run is not resumed behind its operator's back: it is named with how to continue it,
 * and the command exits 1, since the warehouse is not as declared.
 */
async function followOwed(
  context: CommandContext,
  app: App,
  plan: DeclaredPlan,
  startedRunId: number | undefined,
  concurrency: number,
): Promise<void> {
  const { readOwedRuns } = await import('../read-owed-runs.js');
  const owed = (await readOwedRuns(app, plan)).runs;
  const paused = owed.filter((p) => p.status === 'paused');
  const runIds = [
    ...owed.filter((p) => p.status !== 'paused').map((p) => p.runId),
    ...(startedRunId === undefined ? [] : [startedRunId]),
  ];
  if (runIds.length > 0) {
    requireApiKey(context.config);
    const { followRuns } = await import('../follow-runs.js');
    await followRuns(app, context, runIds, { localWorker: true, concurrency });
  }
  for (const p of paused) {
    context.print(
      `run ${p.runId} (${p.kind}) is paused with ${p.total - p.done - p.failed} chunk(s) left: ` +
        `apply does not resume it — continue: envdata resume ${p.runId} --wait`,
    );
  }
  if (paused.length > 0 && context.exitCode === 0) context.exitCode = 1;
}

/** Whether the plan's run goes over the month's budget (`readPlanCost`), as `plan` notes it. */
async function overBudget(app: App, plan: DeclaredPlan): Promise<boolean> {
  if (!app.config.money.budget || plan.estimate.calls === 0) return false;
  const { readPlanCost } = await import('../read-plan-cost.js');
  return (await readPlanCost(app, plan.estimate.calls, 'other')).overBudget;
}
