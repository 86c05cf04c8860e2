import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './console-access.js';

/** A `Host` header a browser sends: a name or IPv4 address, or IPv6 in brackets; a port. */
const HOST_HEADER =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** Longest `Host` quoted back in a refusal. */
const SHOWN_CHARACTERS = 80;

/**
 * The `Host` names the console answers to. On a loopback bind, reads need no token, so a page of
 * another site that DNS-rebinds its own name to 127.0.0.1 could read runs, names and coverage
 * through the operator's browser; the browser then still sends that site's name as `Host`. So a
 * loopback console answers only requests naming a loopback host — `localhost` and `*.localhost`
 * (which browsers resolve to loopback themselves, never through DNS), 127.0.0.0/8, `[::1]`, any
 * port — the interface it binds, or a name of ENVDATA_CONSOLE_HOSTS (a reverse proxy's, say).
 *
 * Beyond loopback every read needs the token, which a rebinding page cannot have (the cookie
 * belongs to the console's own name), and the console is reached by names it cannot know (a
 * container's, an address): any `Host` is answered, unless ENVDATA_CONSOLE_HOSTS is set, which
 * then limits it the same way.
 */
export class AllowedHosts {
  /** Names accepted besides loopback ones, in the form a browser sends them. */
  private readonly names: ReadonlySet<string>;
  /** Whether `Host` is checked at all. */
  readonly enforced: boolean;

  constructor(options: { bind: string; names: readonly string[] }) {
    const names = new Set(options.names);
    const bind = canonicalHost(
      options.bind.includes(':') ? `[${options.bind.replace(/^\[|\]$/g, '')}]` : options.bind,
    );
    if (bind !== undefined && bind !== '0.0.0.0' && bind !== '[::]' && !isLoopbackName(bind)) {
      names.add(bind);
    }
    this.names = names;
    this.enforced = isLoopbackHost(options.bind) || options.names.length > 0;
  }

  /** Why the console does not answer `request`, or `undefined` when it does. */
  refusal(request: IncomingMessage): string | undefined {
    if (!this.enforced) return undefined;
    const header = request.headers.host ?? '';
    const host = HOST_HEADER.test(header) ? canonicalHost(header.replace(/:\d+$/, '')) : undefined;
    if (host !== undefined && (isLoopbackName(host) || this.names.has(host))) return undefined;
    const shown = JSON.stringify(header.slice(0, SHOWN_CHARACTERS));
    const names = ['localhost', '127.0.0.1', '[::1]', ...this.names];
    return `this console answers to ${names.join(', ')} only, and the request names Host ${shown}: open it by one of those, or add the name to ENVDATA_CONSOLE_HOSTS (a page of another site reaching it by DNS rebinding is refused the same way)\n`;
  }
}

/** A loopback name: `localhost`, `*.localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackName(host: string): boolean {
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** `host` (no port) as a browser writes it; `undefined` when it is no host at all. */
function canonicalHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
}
