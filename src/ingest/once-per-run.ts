/** Whether this process has not yet said `cause` of run `runId` (and now has). */
export type OncePerRun = (runId: number, cause: string) => boolean;

/**
 * A per-process memory of what was logged of each run, so that one failure shared by every worker
 * slot (the key refused: each slot's job gets the same 401) is one log line per run and cause, not
 * one per slot. Forgets everything past `limit` entries: at worst a line said again.
 */
export function oncePerRun(limit = 10_000): OncePerRun {
  const said = new Set<string>();
  return (runId, cause) => {
    const key = `${runId}:${cause}`;
    if (said.has(key)) return false;
    if (said.size >= limit) said.clear();
    said.add(key);
    return true;
  };
}
