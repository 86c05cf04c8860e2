import { parseArgs, type ParseArgsConfig } from 'node:util';

/** The flags a bench takes, as `parseArgs` declares them. */
type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/** The values `parseArgs` reads for `options` (strict). */
export type FlagValues<O extends FlagOptions> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; strict: true }>
>['values'];

/**
 * Reads a bench's flags from `argv` (without node and the script) with `parseArgs`, strictly,
 * then `read` makes its options of them. A flag it does not know, or one `read` throws on, is a
 * usage error: the message and `usage` on stderr, exit status 2. `--help` prints `usage`, exit 0.
 */
export function readBenchFlags<O extends FlagOptions, T>(
  bench: string,
  usage: string,
  argv: readonly string[],
  options: O,
  read: (values: FlagValues<O>) => T,
): T {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', default: false } },
      strict: true,
    });
    if ((values as { help?: boolean }).help) {
      console.log(usage);
      process.exit(0);
    }
    return read(values as FlagValues<O>);
  } catch (error) {
    console.error(`${bench}: ${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}

/** `raw`, the value of `--name`, as a whole number from 1 to `max`; throws naming the flag otherwise. */
export function wholeNumberFlag(name: string, raw: string, max: number): number {
  const n = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new Error(`--${name} must be a whole number from 1 to ${max}, got "${raw}"`);
  }
  return n;
}
