/**
 * Resolves with what `check` returns once it returns something, checking now and each time the
 * source calls its `watchers` (new output, a new request); rejects with what `check` throws, or
 * with `timedOut()` after `timeoutMs`. For sources that say when they change, where polling
 * would only be slower.
 */
export function watchUntil<T>(
  watchers: Set<() => void>,
  check: () => T | undefined,
  timeoutMs: number,
  timedOut: () => Error,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      let value: T | undefined;
      try {
        value = check();
      } catch (error) {
        done();
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (value !== undefined) {
        done();
        resolve(value);
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(timedOut());
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      watchers.delete(settle);
    };
    watchers.add(settle);
    settle();
  });
}
