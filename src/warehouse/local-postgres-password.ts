/**
 * The start of every password envdata makes for its local PostgreSQL (`envdata local`, then 18
 * random bytes), as a token's prefix names its issuer. It lives here rather than in `src/local/`
 * because the warehouse's messages read it: a DATABASE_URL that carries one points at envdata's
 * own server, and when that does not answer the way to start it is `envdata local start`, not
 * Docker.
 */
export const LOCAL_PASSWORD_PREFIX = 'envdata_local_';

/** Whether `url` is that of a local PostgreSQL envdata created (its password says so). */
export function isLocalPostgresUrl(url: string): boolean {
  try {
    return decodeURIComponent(new URL(url).password).startsWith(LOCAL_PASSWORD_PREFIX);
  } catch {
    return false;
  }
}
