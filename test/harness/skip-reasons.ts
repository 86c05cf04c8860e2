import type { TestContext } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test was skipped (`skipBecause`), for the run's closing lines. */
    skipReason?: string;
  }
}

/**
 * Skips the running test, recording `reason` for the run's closing lines
 * (`skipReasonsReporter`): a test that cannot run on this machine says why at the end of the run,
 * not only among hundreds of lines.
 */
export function skipBecause(context: TestContext, reason: string): never {
  context.task.meta.skipReason = reason;
  return context.skip(reason);
}

/**
 * One closing line per reason tests were skipped with (`skipBecause`), and how many; `write`
 * (standard output) gets them.
 */
export function skipReasonsReporter(
  write: (text: string) => void = (text) => void process.stdout.write(text),
): Reporter {
  return {
    onTestRunEnd(testModules: readonly TestModule[]) {
      const skipped = new Map<string, number>();
      for (const module of testModules) {
        for (const test of module.children.allTests('skipped')) {
          const reason = test.meta().skipReason;
          if (reason !== undefined) skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
        }
      }
      if (skipped.size === 0) return;
      const lines = [...skipped].map(
        ([reason, count]) => `${reason} (${count} test${count === 1 ? '' : 's'} not run)`,
      );
      write(`\n${lines.join('\n')}\n`);
    },
  };
}
