import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { heartbeatReporter } from './heartbeat-reporter.js';
import { childEnvironment } from './child-environment.js';
import { runCommand } from './run-command.js';

// With one vitest fork on two cores, a file that ran for 15 minutes printed nothing all that
// time (issue 38): the run looked stalled. The reporter is fed events as vitest would.

/** A test file as the reporter sees it. */
function testFile(id: string, name: string, project = 'core'): TestModule {
  return { id, relativeModuleId: name, project: { name: project } } as unknown as TestModule;
}

/** The reporter on a clock the test moves, and the lines it wrote. */
function onFakeClock() {
  let clock = 1_000_000;
  const lines: string[] = [];
  const reporter = heartbeatReporter({ now: () => clock, write: (line) => lines.push(line) });
  return {
    reporter,
    lines,
    /** Moves the clock on by `seconds`, then lets the reporter check, as its timer does. */
    after(seconds: number) {
      clock += seconds * 1000;
      reporter.beat();
    },
  };
}

describe('heartbeatReporter', () => {
  it('names a file that has run a minute with nothing printed, then once a minute', () => {
    const { reporter, lines, after } = onFakeClock();
    reporter.onTestRunStart!([]);
    reporter.onTestModuleStart!(testFile('a', 'test/package/tarball.install.test.ts'));
    after(59);
    expect(lines).toEqual([]);
    after(1);
    expect(lines).toEqual(['… still running: test/package/tarball.install.test.ts [core] (1 min)']);
    after(30);
    expect(lines).toHaveLength(1);
    after(30);
    expect(lines.at(-1)).toBe(
      '… still running: test/package/tarball.install.test.ts [core] (2 min)',
    );
    reporter.onTestRunEnd!([], [], 'passed');
  });

  it('is quiet while files end, and names only the files that have run a minute', () => {
    const { reporter, lines, after } = onFakeClock();
    reporter.onTestRunStart!([]);
    reporter.onTestModuleStart!(testFile('slow', 'test/slow.test.ts', 'postgres'));
    after(40);
    reporter.onTestModuleStart!(testFile('quick', 'test/quick.test.ts'));
    after(10);
    // A file ending is a line of the default reporter: the silence starts again.
    reporter.onTestModuleEnd!(testFile('quick', 'test/quick.test.ts'));
    after(30);
    reporter.onTestModuleStart!(testFile('next', 'test/next.test.ts'));
    after(29);
    expect(lines).toEqual([]);
    // 60 s since the last line: the slow file has run 110 s, the next one 30 s.
    after(1);
    expect(lines).toEqual(['… still running: test/slow.test.ts [postgres] (1 min)']);
    reporter.onTestModuleEnd!(testFile('slow', 'test/slow.test.ts', 'postgres'));
    reporter.onTestModuleEnd!(testFile('next', 'test/next.test.ts'));
    reporter.onTestRunEnd!([], [], 'passed');
    after(600);
    expect(lines).toHaveLength(1);
  });

  it('does not keep the process alive while a file runs', async () => {
    // A run cut short (Ctrl-C, an error) never reaches onTestRunEnd: the timer must not hold
    // node open. A process that starts the reporter on a running file must exit by itself (a
    // command still running when the file ends is killed: test/harness/per-file-setup.ts).
    const run = await runCommand(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { heartbeatReporter } = await import(${JSON.stringify(new URL('./heartbeat-reporter.ts', import.meta.url).href)});
         const reporter = heartbeatReporter({ checkMs: 10 });
         reporter.onTestRunStart([]);
         reporter.onTestModuleStart({ id: 'a', relativeModuleId: 'test/a.test.ts', project: { name: '' } });
         console.log('started');`,
      ],
      { env: childEnvironment() },
    );
    expect({ code: run.code, output: `${run.stdout}${run.stderr}`.trim() }).toEqual({
      code: 0,
      output: 'started',
    });
  }, 30_000);
});
