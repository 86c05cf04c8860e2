#!/usr/bin/env node
// @ts-check
/**
 * Runs the compiled program, dist/src/cli/main.js (`npm run build`; `prepare` builds it at
 * `npm ci`). An installed package has no src/ and runs it as it is. In a checkout (where
 * src/cli/main.ts is), it never runs a stale build: when dist/ is missing, or something under
 * src/, jobs/ or migrations/ (or a tsconfig) is newer than the last build's stamp, it runs the
 * sources through tsx instead, as before there was a build — slower to start, never out of date.
 * `npm run build` makes it fast again. The check costs one stat per source file and folder
 * (about 500), a few milliseconds.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

if (!existsSync(`${ROOT}src/cli/main.ts`) || buildIsCurrent()) {
  await import('../dist/src/cli/main.js');
} else {
  /** @type {typeof import('tsx/esm/api')} */
  let tsx;
  try {
    tsx = await import('tsx/esm/api');
  } catch (error) {
    if (/** @type {{ code?: string }} */ (error).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(
      'envdata: dist/ is missing or older than src/, and tsx (a dev dependency) is not installed to run the sources: run `npm run build`\n',
    );
    process.exit(1);
  }
  tsx.register();
  await import('../src/cli/main.ts');
}

/** Whether dist/.build-stamp (written last by scripts/build.js) is newer than every source. */
function buildIsCurrent() {
  const built = statSync(`${ROOT}dist/.build-stamp`, { throwIfNoEntry: false })?.mtimeMs;
  if (built === undefined) return false;
  // Folders count too: removing or renaming a file changes its folder, not any file left. A walk
  // of our own, by plain loops: Node 20's recursive readdirSync costs several times as much.
  const pending = ['tsconfig.json', 'tsconfig.build.json', 'src', 'jobs', 'migrations'].map(
    (input) => ROOT + input,
  );
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    const stats = statSync(path);
    if (stats.mtimeMs > built) return false;
    if (stats.isDirectory()) for (const name of readdirSync(path)) pending.push(`${path}/${name}`);
  }
  return true;
}
