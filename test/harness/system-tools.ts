import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { TestOptions } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

// The harness is the one place in the tests that reads the environment.
const env = process.env;

const APT_INSTALL = 'apt-get install -y --no-install-recommends';

/**
 * The programs some tests run besides Node.js, each with the Debian package that installs it.
 * Outside CI a test that needs a missing one is skipped and the run's last lines say what to
 * install (`systemToolsReporter`); under CI=true it runs, and fails saying the same.
 */
export const SYSTEM_TOOLS = {
  /** Checks the alert rules, the Prometheus config, the dashboards' PromQL and `/metrics`. */
  promtool: { program: 'promtool', package: 'prometheus' },
  /** Runs the zsh completion script. */
  zsh: { program: 'zsh', package: 'zsh' },
  /** A real terminal for `--wait`'s progress bar (test/harness/run-in-terminal.ts). */
  tmux: { program: 'tmux', package: 'tmux' },
  /** The console's browser tests (test/harness/launch-chromium.ts). */
  chromium: { program: 'chromium', package: 'chromium' },
} as const;

export type SystemTool = keyof typeof SYSTEM_TOOLS;

declare module 'vitest' {
  interface TaskMeta {
    /** The system tools the test needs (`needsTools`). */
    systemTools?: SystemTool[];
  }
}

/** `apt-get install …` of the tools' packages, one command. */
export function installCommand(tools: readonly SystemTool[]): string {
  return `${APT_INSTALL} ${[...new Set(tools.map((t) => SYSTEM_TOOLS[t].package))].join(' ')}`;
}

/** Where `tool`'s program is on PATH, or `undefined`. */
export function findTool(tool: SystemTool): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const file = path.join(dir, SYSTEM_TOOLS[tool].program);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}

/** Where `tool`'s program is, or an error that says how to install it. */
export function requireTool(tool: SystemTool): string {
  const found = findTool(tool);
  if (found === undefined) {
    throw new Error(
      `${SYSTEM_TOOLS[tool].program} is not installed (not on PATH): install it with \`${installCommand([tool])}\``,
    );
  }
  return found;
}

/**
 * Options for `describe`/`it` of tests that run `tools`: skipped when one is missing, but never
 * under CI=true, where the test runs and fails saying what to install. The tools are recorded
 * in the test's `meta`, for the run's closing lines.
 */
export function needsTools(...tools: SystemTool[]): TestOptions {
  const missing = env.CI !== 'true' && tools.some((tool) => findTool(tool) === undefined);
  return { skip: missing, meta: { systemTools: tools } };
}

/**
 * One closing line per missing tool that made tests skip: how many, and the command that
 * installs it; then one command for all of them.
 */
export function systemToolsReporter(): Reporter {
  return {
    onTestRunEnd(testModules: readonly TestModule[]) {
      const skipped = new Map<SystemTool, number>();
      for (const module of testModules) {
        for (const test of module.children.allTests('skipped')) {
          for (const tool of test.meta().systemTools ?? []) {
            if (findTool(tool) !== undefined) continue;
            skipped.set(tool, (skipped.get(tool) ?? 0) + 1);
          }
        }
      }
      if (skipped.size === 0) return;
      const lines = [...skipped].map(
        ([tool, count]) =>
          `${tool}: ${count} test${count === 1 ? '' : 's'} not run — ${SYSTEM_TOOLS[tool].program} is not installed; install it with \`${installCommand([tool])}\``,
      );
      if (skipped.size > 1) {
        lines.push(`all of them: \`${installCommand([...skipped.keys()])}\`, and run again`);
      }
      process.stdout.write(`\n${lines.join('\n')}\n`);
    },
  };
}
