/**
 * A reader of the Dockerfile subset envdata's image uses, enough for scripts/check-dockerfile.ts
 * to run the build stage's commands and check the runtime stage's file list without a Docker
 * engine. Anything outside the subset (ARG, ADD, heredocs, `COPY` of more than one path from a
 * stage…) is an error rather than something skipped, so the check cannot silently miss a step.
 */

/** One instruction: its keyword (upper case), its `--flags` and what follows them. */
export interface DockerInstruction {
  readonly keyword: string;
  /** `--from=build` → `{ from: 'build' }`; flags without a value map to `''`. */
  readonly flags: Readonly<Record<string, string>>;
  /** The rest of the line, continuations joined, flags removed. */
  readonly text: string;
  /** 1-based line of the Dockerfile where the instruction starts. */
  readonly line: number;
}

/** A `FROM` and the instructions under it. */
export interface DockerStage {
  readonly image: string;
  /** The `AS` name, if any. */
  readonly name: string | undefined;
  readonly instructions: readonly DockerInstruction[];
}

/** The instructions the image uses; any other keyword is an error. */
const KNOWN = new Set([
  'FROM',
  'WORKDIR',
  'COPY',
  'RUN',
  'ENV',
  'USER',
  'STOPSIGNAL',
  'ENTRYPOINT',
  'CMD',
  'EXPOSE',
  'LABEL',
]);

/** Splits a Dockerfile into stages (line continuations, comments and flags handled). */
export function parseDockerfile(text: string): DockerStage[] {
  const stages: { image: string; name: string | undefined; instructions: DockerInstruction[] }[] =
    [];
  for (const instruction of readInstructions(text)) {
    if (instruction.keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.text);
      if (!match?.[1]) throw new Error(`line ${instruction.line}: FROM image [AS name] expected`);
      stages.push({ image: match[1], name: match[2], instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`line ${instruction.line}: ${instruction.keyword} before FROM`);
    stage.instructions.push(instruction);
  }
  if (stages.length === 0) throw new Error('no FROM in the Dockerfile');
  return stages;
}

function* readInstructions(text: string): Generator<DockerInstruction> {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let joined = lines[i] ?? '';
    if (/^\s*(#|$)/.test(joined)) continue;
    // A trailing backslash continues the instruction; comment lines inside it are dropped.
    while (/\\\s*$/.test(joined) && i + 1 < lines.length) {
      joined = joined.replace(/\\\s*$/, ' ');
      i++;
      let next = lines[i] ?? '';
      while (/^\s*#/.test(next) && i + 1 < lines.length) next = lines[++i] ?? '';
      if (!/^\s*#/.test(next)) joined += next;
    }
    const match = /^\s*([A-Za-z]+)\s*(.*)$/.exec(joined);
    if (!match?.[1]) throw new Error(`line ${first}: cannot read "${joined.trim()}"`);
    const keyword = match[1].toUpperCase();
    if (!KNOWN.has(keyword)) {
      throw new Error(`line ${first}: ${keyword} is not handled by scripts/dockerfile/`);
    }
    let rest = (match[2] ?? '').trim();
    if (rest.includes('<<')) throw new Error(`line ${first}: heredocs are not handled`);
    const flags: Record<string, string> = {};
    for (let flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest); flag;) {
      flags[flag[1] ?? ''] = flag[2] ?? '';
      rest = rest.slice(flag[0].length);
      flag = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    }
    yield { keyword, flags, text: rest.trim(), line: first };
  }
}

/** The stage named `name` (the `AS` of its FROM). */
export function stageNamed(stages: readonly DockerStage[], name: string): DockerStage {
  const stage = stages.find((s) => s.name === name);
  if (!stage) throw new Error(`no stage named ${name} in the Dockerfile`);
  return stage;
}

/** The instructions of `stage` with keyword `keyword`. */
export function instructionsOf(stage: DockerStage, keyword: string): DockerInstruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** The last `keyword` of a stage in exec (JSON array) form, e.g. ENTRYPOINT; none → undefined. */
export function execFormOf(stage: DockerStage, keyword: string): string[] | undefined {
  const last = instructionsOf(stage, keyword).at(-1);
  if (!last) return undefined;
  const value: unknown = JSON.parse(last.text);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`line ${last.line}: ${keyword} must be in exec form (a JSON array of strings)`);
  }
  return value;
}

/** `WORKDIR` of a stage (the last one; absolute, as Docker resolves it from `/`). */
export function workdirOf(stage: DockerStage): string {
  let dir = '/';
  for (const { text } of instructionsOf(stage, 'WORKDIR')) {
    dir = text.startsWith('/') ? text : `${dir.replace(/\/$/, '')}/${text}`;
  }
  return dir;
}

/** `ENV` of a stage as a record (`ENV A=1 B=2` form only). */
export function envOf(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { text, line } of instructionsOf(stage, 'ENV')) {
    for (const pair of text.split(/\s+/)) {
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
      if (!match?.[1]) throw new Error(`line ${line}: ENV KEY=value expected`);
      env[match[1]] = (match[2] ?? '').replace(/^"(.*)"$/, '$1');
    }
  }
  return env;
}

/** The sources and destination of a `COPY` (shell form, no spaces in paths). */
export function copyPaths(instruction: DockerInstruction): { sources: string[]; dest: string } {
  const parts = instruction.text.split(/\s+/);
  const dest = parts.pop();
  if (!dest || parts.length === 0) {
    throw new Error(`line ${instruction.line}: COPY source… destination expected`);
  }
  return { sources: parts, dest };
}
