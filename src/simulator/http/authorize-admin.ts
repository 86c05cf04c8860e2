import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Header that carries the admin token; `Authorization: Bearer TOKEN` works too. */
export const ADMIN_TOKEN_HEADER = 'x-admin-token';

/**
 * Whether a request may use `/__admin/…`: always when the simulator has no admin token (it then
 * listens on loopback only, `startSimulator` sees to it), else when the request carries the
 * token in `x-admin-token` or `Authorization: Bearer …`. Compared in constant time.
 */
export function isAdminAuthorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const header = req.headers[ADMIN_TOKEN_HEADER];
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  const given = (Array.isArray(header) ? header[0] : header) ?? bearer;
  return given !== undefined && sameSecret(given, token);
}

function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}
