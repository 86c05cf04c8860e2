import { describe, expect, it } from 'vitest';
import { readDockerignore } from '../../scripts/dockerfile/dockerignore.js';
import {
  copyPaths,
  envOf,
  execFormOf,
  instructionsOf,
  parseDockerfile,
  stageNamed,
  workdirOf,
} from '../../scripts/dockerfile/parse-dockerfile.js';
import { composeFile, repoText } from '../config-files/config-files.js';

/**
 * The Dockerfile read as Docker reads it (scripts/dockerfile/), without an engine: what the
 * runtime stage keeps and how it runs. `.ci/run` plays the build stage itself
 * (scripts/check-dockerfile.ts); this file pins what reading alone can tell.
 */
const stages = parseDockerfile(repoText('Dockerfile'));
const runtime = stages.at(-1)!;
const build = stageNamed(stages, 'build');

describe('Dockerfile', () => {
  it('builds on the same Node.js image in both stages, the build stage without NODE_ENV=production', () => {
    expect(stages.map((s) => s.image)).toEqual(['node:20-bookworm-slim', 'node:20-bookworm-slim']);
    // npm ci would leave out the compiler.
    expect(envOf(build).NODE_ENV).toBeUndefined();
    expect(envOf(runtime).NODE_ENV).toBe('production');
  });

  it('runs only what the build stage made: dist/, bin/, node_modules, package.json, never src/', () => {
    const copies = instructionsOf(runtime, 'COPY');
    expect(copies.every((c) => c.flags.from === 'build')).toBe(true);
    const sources = copies.flatMap((c) => copyPaths(c).sources).sort();
    expect(sources).toEqual(['/app/bin', '/app/dist', '/app/node_modules', '/app/package.json']);
  });

  it('runs as the non-root node user, stopped by SIGTERM, through node bin/envdata.js', () => {
    expect(instructionsOf(runtime, 'USER').at(-1)?.text).toBe('node');
    expect(instructionsOf(runtime, 'STOPSIGNAL').at(-1)?.text).toBe('SIGTERM');
    expect(execFormOf(runtime, 'ENTRYPOINT')).toEqual(['node', 'bin/envdata.js']);
    expect(execFormOf(runtime, 'CMD')).toEqual(['--help']);
    expect(workdirOf(runtime)).toBe('/app');
  });

  it("keeps docker-compose.yml's services working: their `node bin/envdata.js` is in the image", () => {
    const copied = instructionsOf(runtime, 'COPY').map((c) =>
      copyPaths(c).dest.replace(/^\.\//, ''),
    );
    for (const [name, service] of Object.entries(composeFile().services)) {
      const line = [...(service.entrypoint ?? []), ...(service.command ?? [])].join(' ');
      for (const [, file] of line.matchAll(/\bnode (\S+\.js)\b/g)) {
        expect(copied, `${name} runs ${file}`).toContain(file!.split('/')[0]);
      }
    }
  });
});

describe('.dockerignore', () => {
  const ignored = readDockerignore(repoText('.dockerignore'));

  it('keeps out what the build makes or must not see, and lets in what it reads', () => {
    for (const path of [
      'node_modules',
      'node_modules/pg/package.json',
      'dist/src/cli/main.js',
      '.git',
      '.env',
      'envdata-0.1.0.tgz',
      'config/redis.conf',
    ]) {
      expect(ignored(path), path).toBe(true);
    }
    for (const path of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      'bin/envdata.js',
      'src/cli/main.ts',
      'src/config/config.ts',
      'jobs/queue-names.ts',
      'migrations',
      '.env.example',
    ]) {
      expect(ignored(path), path).toBe(false);
    }
  });

  it('reads patterns as Docker does: a directory covers what is under it, ** any depth', () => {
    const read = readDockerignore('/dist\nbench/results\n**/*.log\n# comment\n');
    expect(read('dist/a/b.js')).toBe(true);
    expect(read('distant')).toBe(false);
    expect(read('bench/results/x.json')).toBe(true);
    expect(read('bench/backfill.ts')).toBe(false);
    expect(read('a.log')).toBe(true);
    expect(read('deep/er/a.log')).toBe(true);
    expect(() => readDockerignore('!keep')).toThrow(/exceptions/);
  });
});

describe('scripts/dockerfile/parse-dockerfile', () => {
  it('joins continued lines, reads flags, and refuses what it does not play', () => {
    const [stage] = parseDockerfile(
      'FROM node:20 AS b\n# c\nRUN --mount=type=cache,target=/root/.npm \\\n  npm ci \\\n  # inside\n  --no-audit\n',
    );
    const [run] = instructionsOf(stage!, 'RUN');
    expect(run?.flags).toEqual({ mount: 'type=cache,target=/root/.npm' });
    expect(run?.text.replace(/\s+/g, ' ')).toBe('npm ci --no-audit');
    expect(() => parseDockerfile('FROM x\nARG A=1\n')).toThrow(/ARG is not handled/);
    expect(() => parseDockerfile('RUN true\n')).toThrow(/before FROM/);
  });
});
