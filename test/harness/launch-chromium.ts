import { chromium, type Browser } from 'playwright-core';
import { requireTool } from './system-tools.js';

/**
 * A headless Chromium (Debian's `chromium` on PATH, through `playwright-core`: no browser
 * download) with `args` besides its own (e.g. `--host-resolver-rules=…`); throws, naming the
 * package to install, when it is not there. Its tests say so with `needsTools('chromium')`.
 */
export async function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: requireTool('chromium'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', ...args],
  });
}
