import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readAuditReport } from '../../scripts/read-audit-report.js';

/** What npm 11 printed for `npm audit --omit=dev --json` against a registry without the endpoint. */
const REGISTRY_405 = readFileSync(new URL('./audit-405.json', import.meta.url), 'utf8');

function report(vulnerabilities: Record<string, unknown>, counts: Record<string, number>): string {
  return JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities,
    metadata: {
      vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, ...counts },
      dependencies: { prod: 120, dev: 300, optional: 2, peer: 0, peerOptional: 0, total: 420 },
    },
  });
}

describe('readAuditReport', () => {
  it('passes a report without high or critical advisories', () => {
    const verdict = readAuditReport(
      report(
        { 'some-lib': { name: 'some-lib', severity: 'moderate', via: [], fixAvailable: true } },
        {
          moderate: 1,
        },
      ),
    );
    expect(verdict).toEqual({
      kind: 'report',
      counts: { info: 0, low: 0, moderate: 1, high: 0, critical: 0 },
      blocking: [],
    });
  });

  it('lists high and critical advisories with their titles and fixes', () => {
    const verdict = readAuditReport(
      report(
        {
          undici: {
            name: 'undici',
            severity: 'high',
            via: [
              {
                title: 'Request smuggling',
                url: 'https://github.com/advisories/GHSA-x',
                severity: 'high',
              },
            ],
            fixAvailable: { name: 'undici', version: '8.0.0', isSemVerMajor: true },
          },
          'left-pad': {
            name: 'left-pad',
            severity: 'critical',
            via: ['undici'],
            fixAvailable: false,
          },
          chalk: { name: 'chalk', severity: 'low', via: [], fixAvailable: true },
        },
        { low: 1, high: 1, critical: 1 },
      ),
    );
    expect(verdict).toEqual({
      kind: 'report',
      counts: { info: 0, low: 1, moderate: 0, high: 1, critical: 1 },
      blocking: [
        { name: 'left-pad', severity: 'critical', via: ['undici'], fix: 'none' },
        {
          name: 'undici',
          severity: 'high',
          via: ['Request smuggling https://github.com/advisories/GHSA-x'],
          fix: 'major',
        },
      ],
    });
  });

  it('calls a registry that does not serve audits unavailable, not vulnerable', () => {
    expect(readAuditReport(REGISTRY_405)).toEqual({
      kind: 'unavailable',
      reason:
        '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk (HTTP 405)',
    });
    const offline = JSON.stringify({
      error: {
        code: 'ENOTFOUND',
        summary: 'request to https://registry.npmjs.org failed',
        detail: '',
      },
    });
    expect(readAuditReport(offline)).toMatchObject({ kind: 'unavailable' });
  });

  it('fails on an error of the project itself, or output that is not a report', () => {
    const noLock = JSON.stringify({
      error: {
        code: 'ENOLOCK',
        summary: 'This command requires an existing lockfile.',
        detail: '',
      },
    });
    expect(readAuditReport(noLock)).toEqual({
      kind: 'error',
      reason: 'This command requires an existing lockfile.',
    });
    expect(readAuditReport('npm ERR! something broke')).toMatchObject({ kind: 'error' });
  });
});
