/**
 * Runs `body` and returns its result with how far this process's resident memory rose above
 * where it started, at its highest (sampled every 5 ms): the number a "bounded memory" test
 * asserts on.
 */
export async function rssGrowth<T>(body: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await body();
    return { result, growth: Math.max(peak, process.memoryUsage().rss) - before };
  } finally {
    clearInterval(sampler);
  }
}
