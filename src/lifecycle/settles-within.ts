/**
 * Waits for `promise` at most `ms` and says whether it settled (resolved or rejected) in time.
 * Shutdown uses it to bound every step that may wait on a service that is down; a rejection is
 * the caller's to observe on `promise` itself.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, ms));
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      expired,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
