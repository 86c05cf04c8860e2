/** Severities npm audit reports, mildest first. */
const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'] as const;
type Severity = (typeof SEVERITIES)[number];

/** Severities that fail the gate. */
const BLOCKING: readonly Severity[] = ['high', 'critical'];

/** One vulnerable package of a report, as far as the gate needs it. */
export interface AuditFinding {
  readonly name: string;
  readonly severity: Severity;
  /** Advisory titles and links, or the packages it is vulnerable through. */
  readonly via: readonly string[];
  /** `npm audit fix` can fix it (within the ranges, or with a major upgrade). */
  readonly fix: 'available' | 'major' | 'none';
}

/** What `npm audit --json` said. */
export type AuditVerdict =
  /** A report: advisories counted by severity; `blocking` are high or critical. */
  | {
      readonly kind: 'report';
      readonly counts: Readonly<Record<Severity, number>>;
      readonly blocking: readonly AuditFinding[];
    }
  /** The registry did not answer audits (network, an endpoint it does not serve): no verdict. */
  | { readonly kind: 'unavailable'; readonly reason: string }
  /** npm failed for a reason of the project's own (no lockfile, a broken tree): fail. */
  | { readonly kind: 'error'; readonly reason: string };

/** Error codes that say the registry could not be asked, not that something is vulnerable. */
const UNREACHABLE =
  /^(E\d{3}|ENOAUDIT|ENOTFOUND|EAI_AGAIN|ECONN[A-Z]*|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT|UNABLE_TO_[A-Z_]+|SELF_SIGNED_CERT[A-Z_]*|CERT_[A-Z_]+)$/;

/**
 * Reads the standard output of `npm audit --omit=dev --json` (its exit status says little: 1 for
 * advisories and for errors alike). A report has `metadata.vulnerabilities`; an answer from a
 * registry that serves no audit endpoint (`405 Method Not Allowed - POST …/advisories/bulk`) or
 * that cannot be reached carries an HTTP `statusCode` or a network error `code` instead.
 */
export function readAuditReport(stdout: string): AuditVerdict {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    return { kind: 'error', reason: `npm audit printed no JSON: ${stdout.trim().slice(0, 200)}` };
  }
  if (!isObject(json)) return { kind: 'error', reason: 'npm audit printed JSON that is no object' };
  const metadata = isObject(json.metadata) ? json.metadata : undefined;
  if (metadata !== undefined && isObject(metadata.vulnerabilities)) {
    const totals = metadata.vulnerabilities;
    const counts = Object.fromEntries(
      SEVERITIES.map((s) => [s, typeof totals[s] === 'number' ? totals[s] : 0]),
    ) as Record<Severity, number>;
    return { kind: 'report', counts, blocking: blockingFindings(json.vulnerabilities) };
  }
  const error = isObject(json.error) ? json.error : {};
  const code = typeof error.code === 'string' ? error.code : undefined;
  const status = typeof json.statusCode === 'number' ? json.statusCode : undefined;
  const said =
    [json.message, error.summary, error.detail].find(
      (m): m is string => typeof m === 'string' && m.trim() !== '',
    ) ?? code;
  if (status !== undefined || (code !== undefined && UNREACHABLE.test(code))) {
    return {
      kind: 'unavailable',
      reason: `${said ?? 'no answer'}${status !== undefined ? ` (HTTP ${status})` : ''}`,
    };
  }
  return { kind: 'error', reason: said ?? 'npm audit failed without saying why' };
}

function blockingFindings(vulnerabilities: unknown): AuditFinding[] {
  if (!isObject(vulnerabilities)) return [];
  const findings: AuditFinding[] = [];
  for (const [name, entry] of Object.entries(vulnerabilities)) {
    if (!isObject(entry) || !BLOCKING.includes(entry.severity as Severity)) continue;
    const via = (Array.isArray(entry.via) ? entry.via : []).map((v: unknown) =>
      isObject(v) ? `${String(v.title ?? v.name ?? '?')} ${String(v.url ?? '')}`.trim() : String(v),
    );
    const fixAvailable = entry.fixAvailable;
    findings.push({
      name,
      severity: entry.severity as Severity,
      via,
      fix:
        fixAvailable === true
          ? 'available'
          : isObject(fixAvailable)
            ? fixAvailable.isSemVerMajor === true
              ? 'major'
              : 'available'
            : 'none',
    });
  }
  return findings.sort((a, b) => a.name.localeCompare(b.name));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
