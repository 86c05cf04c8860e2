import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, which the console's browser tests drive (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * A headless Chromium (Debian's, through `playwright-core`) with `args` besides its own (e.g.
 * `--host-resolver-rules=…`); throws, naming the package to install, when it is not there.
 */
export async function launchChromium(args: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: the console's browser tests need it — install it with \`apt-get install chromium\``,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args],
  });
}
