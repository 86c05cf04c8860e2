import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface MemorySample {
  readonly rss: number;
  readonly heapUsed: number;
}

export function sampleMemory(): MemorySample {
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

/**
 * A full garbage collection, to read the live heap before and after a phase (never between
 * batches, which would flatter the peaks). `--expose-gc` set at run time, so `npm run` needs no
 * node flags.
 */
export function fullGc(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
