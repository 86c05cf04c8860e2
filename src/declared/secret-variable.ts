import { ENVIRONMENT_VARIABLES } from '../config/environment-variables.js';

/** Parts of a name that say the variable holds a secret, wherever they are in it (`GH_TOKEN`). */
const SECRET_PARTS = [
  'KEY',
  'TOKEN',
  'SECRET',
  'PASSW',
  'PWD',
  'CREDENTIAL',
  'AUTH',
  'PRIVATE',
  'SESSION',
  'COOKIE',
  'JWT',
  'DSN',
  'WEBHOOK',
];

/** Words of a name (between `_`) that say the same: a URL or URI may carry a password. */
const SECRET_WORDS = new Set(['PASS', 'CREDS', 'URL', 'URLS', 'URI', 'CERT', 'SALT', 'PAT']);

/** envdata's own secrets, marked `secret` in its table of variables (ENVDATA_API_KEY, …). */
const ENVDATA_SECRETS = new Set<string>(
  ENVIRONMENT_VARIABLES.filter((v) => 'secret' in v && v.secret === true).map((v) => v.name),
);

/**
 * Whether `${name}` in a declared file is refused, unread, because the variable may hold a
 * secret: one of envdata's own (ENVDATA_API_KEY, ENVDATA_CONSOLE_TOKEN, ENVDATA_NOTIFY_URL), or
 * any whose name says so — it contains KEY, TOKEN, SECRET, PASSW, PWD, CREDENTIAL, AUTH, PRIVATE,
 * SESSION, COOKIE, JWT, DSN or WEBHOOK, or has a word PASS, CREDS, URL(S), URI, CERT, SALT or PAT
 * (DATABASE_URL, REDIS_URL, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, PGPASSWORD). The file lives in
 * git and is planned in CI, where such variables are set: what it expands is stored as location
 * names and printed in plans. A deny-list by name, so a value that looks like a secret is refused
 * too, whatever its variable's name (`expandVariables`).
 */
export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (ENVDATA_SECRETS.has(upper)) return true;
  if (SECRET_PARTS.some((part) => upper.includes(part))) return true;
  return upper.split('_').some((word) => SECRET_WORDS.has(word));
}
