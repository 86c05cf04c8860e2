import { spawnSync } from 'node:child_process';
import { readAuditReport } from './read-audit-report.js';

// The dependency audit of the gate (`npm run audit`, `.ci/run`): `npm audit --omit=dev` with no
// high or critical advisory. Exit 1 on such advisories or when npm fails for a reason of the
// project's own; exit 0 with a warning when the registry cannot answer audits at all (a mirror
// without the audit endpoint, no network), unless --require-registry makes that a failure too.

const requireRegistry = process.argv.includes('--require-registry');
const npm = spawnSync('npm', ['audit', '--omit=dev', '--json'], {
  encoding: 'utf8',
  maxBuffer: 64 * 1024 * 1024,
  shell: process.platform === 'win32',
});
if (npm.error !== undefined) {
  console.error(`audit: could not run npm (${npm.error.message})`);
  process.exit(1);
}
const verdict = readAuditReport(npm.stdout);

switch (verdict.kind) {
  case 'report': {
    const { counts, blocking } = verdict;
    const summary = Object.entries(counts)
      .map(([severity, n]) => `${n} ${severity}`)
      .join(', ');
    if (blocking.length === 0) {
      console.log(`audit: no high or critical advisory in production dependencies (${summary})`);
      process.exit(0);
    }
    console.error(
      `audit: ${blocking.length} package(s) with high or critical advisories (${summary}):`,
    );
    for (const f of blocking) {
      const fix =
        f.fix === 'available'
          ? 'fix: npm audit fix --omit=dev'
          : f.fix === 'major'
            ? 'fix: a major upgrade (npm audit fix --force; check engines against Node 20)'
            : 'no fix published: replace or override it';
      console.error(`  ${f.severity.padEnd(8)} ${f.name}: ${f.via.join('; ')} — ${fix}`);
    }
    process.exit(1);
    break;
  }
  case 'unavailable':
    console.error(
      `audit: WARNING — the registry did not answer the audit (${verdict.reason}); ` +
        'production dependencies were NOT checked. Run `npm audit --omit=dev` against a registry that serves audits.',
    );
    process.exit(requireRegistry ? 1 : 0);
    break;
  case 'error':
    console.error(`audit: npm audit failed: ${verdict.reason}`);
    process.exit(1);
}
