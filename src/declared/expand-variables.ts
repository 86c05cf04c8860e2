import type { YamlPath } from './yaml-position.js';

/** A problem of one string value, by its path. */
export interface ValueProblem {
  readonly path: YamlPath;
  readonly message: string;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const URL_WITH_CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i;
/** A long run of letters and digits with both in it, no spaces: how API keys and tokens look. */
const KEY_LIKE = /^(?=[^\s]*\d)(?=[^\s]*[A-Za-z])[A-Za-z0-9_\-+/=.]{24,}$/;

/**
 * Replaces every `${VAR}` in the string values of `value` with `env`'s value, and refuses
 * literals that look like secrets (a URL with credentials, a key-like token): the file is kept in
 * git, so a secret is referenced from the environment, never written in it. Returns the value
 * with references replaced, and every problem by path.
 */
export function expandVariables(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
): { value: unknown; problems: ValueProblem[] } {
  const problems: ValueProblem[] = [];
  const walk = (v: unknown, path: PropertyKey[]): unknown => {
    if (typeof v === 'string') return expandString(v, path);
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, i]));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v).map(([k, item]) => [k, walk(item, [...path, k])]),
      );
    }
    return v;
  };
  const expandString = (text: string, path: PropertyKey[]): string => {
    const literal = text.replace(REFERENCE, ' ');
    if (URL_WITH_CREDENTIALS.test(literal) || KEY_LIKE.test(literal.trim())) {
      problems.push({
        path,
        message:
          'looks like a secret (a key or a URL with credentials): the file is kept in git, so write ${VAR} and set VAR in the environment',
      });
      return text;
    }
    return text.replace(REFERENCE, (whole, name: string) => {
      const set = env[name];
      if (set !== undefined) return set;
      problems.push({ path, message: `${whole}: ${name} is not set in the environment` });
      return whole;
    });
  };
  return { value: walk(value, []), problems };
}
