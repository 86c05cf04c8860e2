import { z } from 'zod';

/** A host name or IPv4 address, or an IPv6 address in brackets (`[fd00::1]`): no port. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])$/;

/**
 * Parses ENVDATA_CONSOLE_HOSTS, `name,name,…` (spaces around entries allowed): the names, besides
 * loopback ones, by which a browser may reach the console. Returns them in the form a browser
 * sends them in `Host` (lower case, IPv6 in brackets and shortened), or a message naming the
 * first bad entry.
 *
 * @example parseConsoleHosts('console.example.com, 192.0.2.7') // ['console.example.com', '192.0.2.7']
 */
export function parseConsoleHosts(text: string): string[] | string {
  const hosts: string[] = [];
  for (const raw of text.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!HOST.test(entry) || entry.length > 253) {
      return `"${raw.trim()}" is not a host name: list names without scheme, port or path, e.g. console.example.com,192.0.2.7`;
    }
    let canonical: string;
    try {
      canonical = new URL(`http://${entry}/`).hostname;
    } catch {
      return `"${raw.trim()}" is not a host name or address a browser would send`;
    }
    if (!hosts.includes(canonical)) hosts.push(canonical);
  }
  return hosts;
}

/** ENVDATA_CONSOLE_HOSTS, parsed by `parseConsoleHosts`. */
export const consoleHostsSchema = z.string().transform((text, ctx) => {
  const parsed = parseConsoleHosts(text);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return parsed;
});
