import { isSecretVariable } from './secret-variable.js';
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
/** A URL: no value of the file is one, and a URL from the environment may hold a secret. */
const ANY_URL = /[a-z][a-z0-9+.-]*:\/\//i;

/**
 * Replaces every `${VAR}` in the string values of `value` with `env`'s value, and refuses
 * literals that look like secrets (a URL with credentials, a key-like token): the file is kept in
 * git, so a secret is referenced from the environment, never written in it. Returns the value
 * with references replaced, and every problem by path.
 *
 * The file is also planned where secrets are set (CI), and what it expands is stored (location
 * names) and printed (plans): so a reference to a variable that may hold a secret
 * (`isSecretVariable`: envdata's own, or a name with KEY, TOKEN, URL, …) is refused unread, and
 * so is a value from the environment that looks like a secret or holds a URL, whatever its
 * variable's name. `file:` values (`literalOnly`) take no reference at all: they name a file
 * in the declared file's folder. No problem quotes a value read from the environment, only the
 * variable's name.
 */
export function expandVariables(
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  literalOnly: (path: YamlPath) => boolean = () => false,
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
    if (literal !== text && literalOnly(path)) {
      problems.push({
        path,
        message: "takes no ${VAR}: write the name of a file in this file's folder",
      });
      return text;
    }
    return text.replace(REFERENCE, (whole, name: string) => {
      if (isSecretVariable(name)) {
        problems.push({
          path,
          message: `${whole}: ${name} may hold a secret (envdata's own, or its name says so), and the file is planned where secrets are set: \${VAR} reads only other variables`,
        });
        return whole;
      }
      const set = env[name];
      if (set === undefined) {
        problems.push({ path, message: `${whole}: ${name} is not set in the environment` });
        return whole;
      }
      if (ANY_URL.test(set) || set.split(/\s+/).some((word) => KEY_LIKE.test(word))) {
        problems.push({
          path,
          message: `${whole}: the value of ${name} looks like a secret (a key, or a URL), so it is not read into the file`,
        });
        return whole;
      }
      return set;
    });
  };
  return { value: walk(value, []), problems };
}
