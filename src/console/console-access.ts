import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { EnvdataError } from '../errors/envdata-error.js';

/** The cookie the console's sign-in form sets: the token, for a browser to send back. */
export const TOKEN_COOKIE = 'envdata_console_token';

/** Whether `host` (an interface to listen on) is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Who may see the console and act through it. Reads need the token only when the server is
 * bound beyond loopback (and then it must be set); actions (retry, resume) always need it, and
 * are disabled while no token is configured. A request carries the token as
 * `Authorization: Bearer …` or as the cookie of the sign-in form. Tokens are compared in constant
 * time (of their SHA-256 digests, so their lengths do not show either) and never logged.
 */
export class ConsoleAccess {
  private readonly digest: Buffer | undefined;
  /** Whether reads need the token: bound beyond loopback. */
  readonly readsNeedToken: boolean;

  constructor(options: { host: string; token: string | undefined }) {
    this.readsNeedToken = !isLoopbackHost(options.host);
    if (this.readsNeedToken && !options.token) {
      throw new EnvdataError(
        'CONFIG_INVALID',
        `the console binds to ${options.host}, beyond loopback: set ENVDATA_CONSOLE_TOKEN (16+ characters, e.g. \`openssl rand -hex 24\`) so that every request must carry it, or bind to 127.0.0.1`,
      );
    }
    this.digest = options.token === undefined ? undefined : sha256(options.token);
  }

  /** Whether actions are possible at all (a token is configured). */
  get actionsEnabled(): boolean {
    return this.digest !== undefined;
  }

  /** Whether `request` carries the configured token (header or cookie). */
  carriesToken(request: IncomingMessage): boolean {
    if (!this.digest) return false;
    const offered = bearerOf(request) ?? cookieOf(request, TOKEN_COOKIE);
    return offered !== undefined && this.matches(offered);
  }

  /** Whether `candidate` is the configured token, in constant time. */
  matches(candidate: string): boolean {
    return this.digest !== undefined && timingSafeEqual(sha256(candidate), this.digest);
  }

  /** Whether `request` may read (pages, the JSON API, the queues board). */
  mayRead(request: IncomingMessage): boolean {
    return !this.readsNeedToken || this.carriesToken(request);
  }

  /**
   * Why `request` may not act, or `undefined` when it may: the token is required, and a browser's
   * request must come from the console's own origin (no cross-site request rides on its cookie).
   */
  actionRefusal(request: IncomingMessage): { status: 401 | 403; message: string } | undefined {
    if (!this.actionsEnabled) {
      return {
        status: 403,
        message:
          'actions are disabled: set ENVDATA_CONSOLE_TOKEN and restart `envdata serve` to retry or resume from the console',
      };
    }
    if (!this.carriesToken(request)) {
      return {
        status: 401,
        message: 'this action needs the console token: sign in, or send Authorization: Bearer …',
      };
    }
    if (!sameOrigin(request)) {
      return { status: 403, message: 'refused: the request does not come from the console itself' };
    }
    return undefined;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function bearerOf(request: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/** The value of cookie `name` of `request`, decoded. */
export function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/**
 * Whether a state-changing request comes from the console's own pages: its `Origin` (or, without
 * one, its `Sec-Fetch-Site`) names this host. A request with neither is a program's, not a
 * browser's: it passes only with an `Authorization` header, which a browser never adds by itself.
 */
function sameOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    try {
      return new URL(origin).host === request.headers.host;
    } catch {
      return false;
    }
  }
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return bearerOf(request) !== undefined;
}
