import { spawnSync } from 'node:child_process';
import { requireTool } from '../harness/system-tools.js';

/** One sample of the Prometheus text format: `name{labels} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

/**
 * The samples of a Prometheus text exposition (version 0.0.4): comments skipped, label values
 * unescaped (`\\`, `\"`, `\n`). Throws on a line that is not a sample, naming it.
 */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = m[2] ?? '';
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < body.length) {
      const at = LABEL.lastIndex;
      const l = LABEL.exec(body);
      if (!l || LABEL.lastIndex === at) {
        throw new Error(`bad labels in Prometheus line: ${JSON.stringify(line)}`);
      }
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const raw = m[3]!;
    // Prometheus reads values as Go's ParseFloat does: `NaN` in any case (prom-client: `Nan`).
    const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw);
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) {
      throw new Error(`bad value in Prometheus line: ${JSON.stringify(line)}`);
    }
    samples.push({ name: m[1]!, labels, value });
  }
  return samples;
}

/** The samples named `name`, keyed by the values of `labels` joined with `|`. */
export function samplesBy(
  samples: readonly Sample[],
  name: string,
  labels: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) {
    if (s.name === name) out[labels.map((l) => s.labels[l] ?? '').join('|')] = s.value;
  }
  return out;
}

/**
 * Runs `promtool check metrics` on `text` (from standard input) and throws its findings when it
 * refuses it. A missing promtool fails, saying how to install it (`needsTools('promtool')` skips
 * the tests that call this outside CI).
 */
export function checkWithPromtool(text: string): void {
  const result = spawnSync(requireTool('promtool'), ['check', 'metrics'], {
    input: text,
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `promtool check metrics refused the text (exit ${result.status}):\n${result.stdout}${result.stderr}`,
    );
  }
}
