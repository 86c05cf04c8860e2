import { describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import { skipReasonsReporter } from './skip-reasons.js';

// Without a registry the tarball install tests skip; the run's closing lines must say why, as
// they do for a missing system tool (issue 38).

/** A test file as the reporter sees it at the end of a run: its skipped tests' meta. */
function testFile(skipped: { skipReason?: string }[]): TestModule {
  return {
    children: { allTests: () => skipped.map((meta) => ({ meta: () => meta })) },
  } as unknown as TestModule;
}

const REASON =
  "registry unreachable: tarball install test skipped — http://127.0.0.1:9/ does not answer (ECONNREFUSED), and npm's cache lacks the packages' metadata to install offline";

describe('skipReasonsReporter', () => {
  it('closes the run with one line per reason and the number of tests it skipped', () => {
    let written = '';
    const reporter = skipReasonsReporter((text) => (written += text));
    reporter.onTestRunEnd!(
      [
        testFile([{ skipReason: REASON }, { skipReason: REASON }, {}]),
        testFile([{ skipReason: 'other' }]),
      ],
      [],
      'passed',
    );
    expect(written).toBe(`\n${REASON} (2 tests not run)\nother (1 test not run)\n`);
  });

  it('says nothing when no test was skipped for a reason', () => {
    let written = '';
    const reporter = skipReasonsReporter((text) => (written += text));
    reporter.onTestRunEnd!([testFile([{}])], [], 'passed');
    expect(written).toBe('');
  });
});
