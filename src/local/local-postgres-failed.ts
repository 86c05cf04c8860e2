import { coerceError } from '../errors/coerce-error.js';
import { EnvdataError, isEnvdataError } from '../errors/envdata-error.js';
import type { LocalPostgresLayout } from './local-postgres-layout.js';

/**
 * The one-line message of a local PostgreSQL that could not be created, started or stopped:
 * what happened (`reason`, a PostgreSQL message as it is), in which directory, and what to do.
 */
export function localPostgresFailed(
  layout: LocalPostgresLayout,
  what: string,
  reason: string,
  cause?: unknown,
  /** `removed`: a first start, whose files `startLocalPostgres` removes again (nothing to keep). */
  afterwards: 'kept' | 'removed' = 'kept',
): EnvdataError {
  const next =
    afterwards === 'removed'
      ? `nothing of it was kept: fix the cause and run the command again, or set ENVDATA_LOCAL_DIR to another directory`
      : `stop any other server using it (\`envdata local stop\` stops the one envdata started), or remove ${layout.dir} to start afresh (its data is lost); its log is ${layout.logFile}`;
  return new EnvdataError(
    'LOCAL_POSTGRES_FAILED',
    `the local PostgreSQL in ${layout.dir} ${what}: ${reason} — ${next}`,
    { cause, details: { dir: layout.dir } },
  );
}

/**
 * The lines of a PostgreSQL program's output or log that say why it failed (FATAL, PANIC, ERROR,
 * and their DETAIL and HINT), joined in one line; the last line when none is marked.
 */
export function failureReason(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const marked = lines
    .map((l) => /\b(FATAL|PANIC|ERROR|DETAIL|HINT|error):\s+(.*)$/.exec(l))
    .filter((m) => m !== null)
    .map((m) => (m[1] === 'DETAIL' || m[1] === 'HINT' ? m[2]! : `${m[1]}: ${m[2]!}`));
  return (marked.length > 0 ? marked.join(' ') : (lines.at(-1) ?? 'no message')).slice(0, 600);
}

/**
 * Runs `body`, which reads and writes the layout's files: a file system error there (a directory
 * that cannot be created or read, say one another user made) becomes one line naming the
 * directory and what to do, not a stack trace.
 */
export async function inLocalDirectory<T>(
  layout: LocalPostgresLayout,
  body: () => Promise<T>,
): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const syscall = (error as NodeJS.ErrnoException | null)?.syscall;
    if (isEnvdataError(error) || syscall === undefined) throw error;
    throw new EnvdataError(
      'LOCAL_POSTGRES_FAILED',
      `the local PostgreSQL's directory ${layout.dir} cannot be used (${coerceError(error).message}): fix its permissions, run envdata as the user that created it, or set ENVDATA_LOCAL_DIR to another directory`,
      { cause: error, details: { dir: layout.dir } },
    );
  }
}
