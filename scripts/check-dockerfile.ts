/**
 * Checks the Dockerfile without a Docker engine (`.ci/run` runs it):
 *
 * 1. the stage the runtime stage copies from (`build`) is played as a script in a temporary
 *    directory that stands for its file system: its COPYs from the build context (honouring
 *    .dockerignore) and its RUN commands, the same commands in the same order;
 * 2. every path the runtime stage COPYs from it must then exist;
 * 3. only those paths are copied into a second directory, the runtime stage's file system, which
 *    must hold no `src/` and none of the dev-only packages (typescript, tsx, vitest…), and there
 *    the runtime stage's ENTRYPOINT answers its CMD (`--help`) and `--version`; with
 *    `--migrate ADMIN_URL` it also migrates a fresh database on that server (dropped after).
 *
 * The COPY lines and commands are read from the Dockerfile (scripts/dockerfile/), never repeated
 * here, so the check cannot drift from the image. What it cannot see: the base image's own files
 * (it runs with this machine's Node.js and npm) and the `node` user's permissions.
 *
 *   npx tsx scripts/check-dockerfile.ts [--migrate postgres://postgres@127.0.0.1:5432/postgres] [--keep]
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { readDockerignore } from './dockerfile/dockerignore.js';
import { adminQuery } from './lib/admin-query.js';
import {
  copyPaths,
  envOf,
  execFormOf,
  instructionsOf,
  parseDockerfile,
  stageNamed,
  workdirOf,
  type DockerStage,
} from './dockerfile/parse-dockerfile.js';

const CONTEXT = fileURLToPath(new URL('../', import.meta.url));

/** A finding of the check: printed in one line, exit code 1, the scratch directory removed. */
class CheckFailed extends Error {}

const { values } = parseArgs({
  options: { migrate: { type: 'string' }, keep: { type: 'boolean', default: false } },
});

const stages = parseDockerfile(readFileSync(path.join(CONTEXT, 'Dockerfile'), 'utf8'));
const runtime = stages.at(-1) as DockerStage;
const copies = instructionsOf(runtime, 'COPY');
const scratch = mkdtempSync(path.join(tmpdir(), 'envdata-dockerfile-'));
const buildRoot = path.join(scratch, 'build');
const runtimeRoot = path.join(scratch, 'runtime');
const home = path.join(scratch, 'home');

try {
  const sourceStages = new Set(copies.map((c) => c.flags.from));
  if (sourceStages.size !== 1 || sourceStages.has(undefined)) {
    fail(`the runtime stage must COPY --from one build stage only (found: ${[...sourceStages]})`);
  }
  mkdirSync(home);
  playBuildStage(stageNamed(stages, [...sourceStages][0] as string), buildRoot);
  copyRuntimeFiles();
  checkRuntimeFiles();
  await runRuntime();
  console.log('== Dockerfile: the build stage ran; the runtime stage is complete and runs');
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error;
  console.error(`check-dockerfile: ${error.message}`);
  process.exitCode = 1;
} finally {
  if (values.keep) console.log(`== kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}

/** WORKDIR, COPY from the context and RUN of `stage`, in order, under `root`. */
function playBuildStage(stage: DockerStage, root: string): void {
  const ignored = readDockerignore(readText(path.join(CONTEXT, '.dockerignore')));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? home, ...envOf(stage) };
  let workdir = '/';
  for (const instruction of stage.instructions) {
    const here = path.join(root, workdir);
    switch (instruction.keyword) {
      case 'WORKDIR':
        workdir = path.posix.resolve(workdir, instruction.text);
        mkdirSync(path.join(root, workdir), { recursive: true });
        break;
      case 'COPY': {
        if (instruction.flags.from !== undefined)
          fail(`line ${instruction.line}: COPY --from in the build stage`);
        const { sources, dest } = copyPaths(instruction);
        const into = path.resolve(here, dest.startsWith('/') ? path.join(root, dest) : dest);
        for (const source of sources) {
          const from = path.join(CONTEXT, source);
          const toDir = dest.endsWith('/') || dest === '.' || sources.length > 1;
          const to =
            statSync(from).isDirectory() || !toDir ? into : path.join(into, path.basename(from));
          cpSync(from, to, {
            recursive: true,
            verbatimSymlinks: true,
            filter: (file) => !ignored(path.relative(CONTEXT, file)),
          });
        }
        break;
      }
      case 'RUN': {
        console.log(`== build stage, line ${instruction.line}: RUN ${instruction.text}`);
        const started = Date.now();
        run(
          instruction.text.startsWith('[')
            ? (JSON.parse(instruction.text) as string[])
            : ['/bin/sh', '-c', instruction.text],
          {
            cwd: here,
            env,
            stdio: 'inherit',
          },
        );
        console.log(`== ${((Date.now() - started) / 1000).toFixed(1)} s`);
        break;
      }
      case 'ENV':
        break;
      default:
        fail(`line ${instruction.line}: ${instruction.keyword} in the build stage is not played`);
    }
  }
}

/** Each COPY --from of the runtime stage: the source must exist; copied to its destination. */
function copyRuntimeFiles(): void {
  const workdir = path.join(runtimeRoot, workdirOf(runtime));
  mkdirSync(workdir, { recursive: true });
  const missing: string[] = [];
  for (const instruction of copies) {
    const { sources, dest } = copyPaths(instruction);
    for (const source of sources) {
      if (!source.startsWith('/'))
        fail(`line ${instruction.line}: COPY --from needs an absolute source (${source})`);
      const from = path.join(buildRoot, source);
      if (!existsSync(from)) {
        missing.push(`${source} (line ${instruction.line})`);
        continue;
      }
      const into = dest.startsWith('/')
        ? path.join(runtimeRoot, dest)
        : path.resolve(workdir, dest);
      const to =
        statSync(from).isDirectory() || !dest.endsWith('/')
          ? into
          : path.join(into, path.basename(from));
      mkdirSync(path.dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    }
  }
  if (missing.length > 0) fail(`the build stage did not produce: ${missing.join(', ')}`);
}

/** No sources and no dev-only package in the runtime stage. */
function checkRuntimeFiles(): void {
  const app = path.join(runtimeRoot, workdirOf(runtime));
  if (existsSync(path.join(app, 'src')))
    fail('the runtime stage holds src/: it should run dist/ only');
  const manifest = JSON.parse(readText(path.join(app, 'package.json'))) as {
    devDependencies?: Record<string, string>;
  };
  const lock = JSON.parse(readText(path.join(CONTEXT, 'package-lock.json'))) as {
    packages: Record<string, { dev?: boolean }>;
  };
  // A dev dependency the production tree also needs (the lockfile says which) may stay.
  const devOnly = Object.keys(manifest.devDependencies ?? {}).filter(
    (name) => lock.packages[`node_modules/${name}`]?.dev === true,
  );
  const shipped = devOnly.filter((name) => existsSync(path.join(app, 'node_modules', name)));
  if (shipped.length > 0) fail(`the runtime stage holds dev-only packages: ${shipped.join(', ')}`);
  console.log(`== runtime stage: no src/, none of ${devOnly.length} dev-only packages`);
}

/** The runtime stage's ENTRYPOINT with its CMD, with --version and, if asked, with migrate. */
async function runRuntime(): Promise<void> {
  const entrypoint = execFormOf(runtime, 'ENTRYPOINT');
  if (!entrypoint) fail('the runtime stage has no ENTRYPOINT in exec form');
  const cmd = execFormOf(runtime, 'CMD') ?? [];
  const app = path.join(runtimeRoot, workdirOf(runtime));
  const env = { PATH: process.env.PATH ?? '', HOME: home, ...envOf(runtime) };
  const [program, ...args] = entrypoint;
  const envdata = (more: readonly string[], extra: Record<string, string> = {}) =>
    run([program as string, ...args, ...more], { cwd: app, env: { ...env, ...extra } });

  const help = envdata(cmd);
  if (!help.includes('Usage:')) fail(`ENTRYPOINT + CMD printed no usage:\n${help}`);
  const { version } = JSON.parse(readText(path.join(app, 'package.json'))) as { version: string };
  const printed = envdata(['--version']).trim();
  if (printed !== version) fail(`--version printed "${printed}", package.json says ${version}`);
  console.log(
    `== runtime stage: ${[...entrypoint, ...cmd].join(' ')} and --version (${printed}) work`,
  );

  if (values.migrate) {
    await migrateFresh(values.migrate, (url) => envdata(['migrate'], { DATABASE_URL: url }));
  }
}

/** `migrate` against a database created for it on the server of `adminUrl`, dropped after. */
async function migrateFresh(adminUrl: string, migrate: (url: string) => string): Promise<void> {
  const name = `envdata_dockerfile_${randomBytes(4).toString('hex')}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await adminQuery(adminUrl, `create database ${pg.escapeIdentifier(name)}`);
  try {
    migrate(url.href);
    console.log(`== runtime stage: migrate brought a fresh database to the latest migration`);
  } finally {
    await adminQuery(adminUrl, `drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  }
}

/** Runs a command; its standard output, or the end of the run with what it printed. */
function run(argv: readonly string[], options: SpawnSyncOptions): string {
  const [program, ...args] = argv;
  const result = spawnSync(program as string, args, { encoding: 'utf8', ...options });
  if (result.status !== 0) {
    fail(
      `${argv.join(' ')} exited with ${result.status ?? result.signal}` +
        (result.stdout ? `\n${String(result.stdout)}` : '') +
        (result.stderr ? `\n${String(result.stderr)}` : ''),
    );
  }
  return String(result.stdout ?? '');
}

function readText(file: string): string {
  return readFileSync(file, 'utf8');
}

function fail(message: string): never {
  throw new CheckFailed(message);
}
