#!/usr/bin/env node
// @ts-check
/**
 * `npm run build` (and `prepare`, so `npm ci` in a clone builds): compiles src/ and migrations/
 * into dist/ with tsconfig.build.json, copies the files src/ reads at run time, removes what a
 * deleted or renamed source left behind, and last writes dist/.build-stamp, which bin/envdata.js
 * compares with the sources to never run a stale build. Plain JavaScript so that it needs
 * TypeScript only, not tsx.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
/** Written last, dated when the build started: a source saved during the build is newer. */
const STAMP = join(DIST, '.build-stamp');
/** Files src/ reads beside itself at run time (relative to `import.meta.url`), copied as they are. */
const ASSETS = ['src/console/public'];
/** The folders tsc compiles: what dist/ mirrors. */
const COMPILED = ['src', 'migrations'];

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // `npm ci --omit=dev` runs `prepare` too, without the compiler: an install of production
  // dependencies beside a dist/ built elsewhere (an image's runtime stage) is not an error.
  if (process.env.npm_lifecycle_event === 'prepare') {
    process.stderr.write(
      'envdata: typescript is not installed (dev dependencies omitted): not building dist/\n',
    );
    process.exit(0);
  }
  process.stderr.write(
    'envdata: typescript is not installed: run `npm ci` (with dev dependencies) first\n',
  );
  process.exit(1);
}

const started = new Date();
// A build in progress is not a build: bin/envdata.js sees no stamp and does not use dist/.
rmSync(STAMP, { force: true });
// tsc trusts its record of what it emitted: without the output it describes, start afresh.
if (!existsSync(join(DIST, 'src/cli/main.js'))) rmSync(join(DIST, '.tsbuildinfo'), { force: true });

const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

for (const asset of ASSETS) {
  cpSync(join(ROOT, asset), join(DIST, asset), { recursive: true });
}

// tsc never deletes: the output of a source that is gone would still load (a migration would
// even run), so every file of dist/ must have its source.
for (const folder of COMPILED) {
  if (!existsSync(join(DIST, folder))) continue;
  for (const entry of readdirSync(join(DIST, folder), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const built = relative(DIST, join(entry.parentPath, entry.name));
    if (!hasSource(built)) rmSync(join(DIST, built));
  }
}

writeFileSync(STAMP, `built ${started.toISOString()} from src/ and migrations/\n`);
utimesSync(STAMP, started, started);

/**
 * Whether dist/`built` comes from a file of the repository: compiled (`x.js`, `x.js.map` from
 * `x.ts`) or copied.
 * @param {string} built
 */
function hasSource(built) {
  const base = built.replace(/\.js(\.map)?$/, '');
  return existsSync(join(ROOT, built)) || (base !== built && existsSync(join(ROOT, `${base}.ts`)));
}
