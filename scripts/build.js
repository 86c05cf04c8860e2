#!/usr/bin/env node
// @ts-check
/**
 * `npm run build` (and `prepare`, so `npm ci` in a clone builds): compiles src/, jobs/ and
 * migrations/ into dist/ with tsconfig.build.json, bundles the packages of VENDORED into dist/vendor/ (esbuild),
 * copies the files src/ reads at run time, removes what a deleted or renamed source left behind,
 * and last writes dist/.build-stamp, which bin/envdata.js compares with the sources to never run
 * a stale build. Plain JavaScript so that it needs TypeScript and esbuild only, not tsx.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DIST = join(ROOT, 'dist');
/** Written last, dated when the build started: a source saved during the build is newer. */
const STAMP = join(DIST, '.build-stamp');
/** Files src/ reads beside itself at run time (relative to `import.meta.url`), copied as they are. */
const ASSETS = ['src/console/public'];
/** The folders tsc compiles: what dist/ mirrors. */
const COMPILED = ['src', 'jobs', 'migrations'];
/**
 * Packages whose ES build is hundreds of small modules (Kysely about 1,000, zod about 240): each
 * is bundled into one file of dist/vendor/, and the compiled code imports that file instead.
 * Node 20 loads ES modules one by one, so this is most of what a command like `envdata status`
 * spends before its first query (`npm run bench:cli` prints the figures).
 */
const VENDORED = ['kysely', 'zod'];
const VENDOR = join(DIST, 'vendor');

const VENDORED_SPECIFIER = new RegExp(
  `(\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\bimport\\s+)(['"])(${VENDORED.join('|')})\\2`,
  'g',
);

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

await bundleVendored();
for (const folder of COMPILED) {
  for (const entry of readdirSync(join(DIST, folder), { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.js'))
      importVendored(join(entry.parentPath, entry.name));
  }
}

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

writeFileSync(STAMP, `built ${started.toISOString()} from ${COMPILED.join('/, ')}/\n`);
utimesSync(STAMP, started, started);

/**
 * Writes dist/vendor/<package>.js for each package of VENDORED, with esbuild. A bundle that has
 * not changed is left as it is, and a new one replaces the old in one rename: a program running
 * from dist/ meanwhile (a test suite, a worker) never reads half a file.
 */
async function bundleVendored() {
  const { build } = await import('esbuild');
  mkdirSync(VENDOR, { recursive: true });
  for (const name of VENDORED) {
    const result = await build({
      stdin: { contents: `export * from '${name}';`, resolveDir: ROOT, sourcefile: `${name}.js` },
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      legalComments: 'eof',
      logLevel: 'warning',
      write: false,
      outfile: join(VENDOR, `${name}.js`),
    });
    for (const output of result.outputFiles) {
      if (existsSync(output.path) && readFileSync(output.path).equals(output.contents)) continue;
      const partial = `${output.path}.${process.pid}.partial`;
      writeFileSync(partial, output.contents);
      renameSync(partial, output.path);
    }
  }
}

/**
 * Points the compiled file's imports of a VENDORED package at its bundle. tsc keeps the quotes
 * and the text of each specifier, so a match is exactly an import of the package; a file already
 * rewritten (tsc does not re-emit an unchanged source) has nothing left to match.
 * @param {string} file
 */
function importVendored(file) {
  const code = readFileSync(file, 'utf8');
  const bundled = code.replace(VENDORED_SPECIFIER, (_, before, quote, name) => {
    let target = relative(dirname(file), join(VENDOR, `${name}.js`))
      .split(sep)
      .join(posix.sep);
    if (!target.startsWith('.')) target = `./${target}`;
    return `${before}${quote}${target}${quote}`;
  });
  if (bundled !== code) writeFileSync(file, bundled);
}

/**
 * Whether dist/`built` comes from a file of the repository: compiled (`x.js`, `x.js.map` from
 * `x.ts`) or copied.
 * @param {string} built
 */
function hasSource(built) {
  const base = built.replace(/\.js(\.map)?$/, '');
  return existsSync(join(ROOT, built)) || (base !== built && existsSync(join(ROOT, `${base}.ts`)));
}
