import { isIP } from 'node:net';

/**
 * Whether a listen address keeps the simulator on this machine: `localhost`, `127.0.0.0/8`,
 * `::1` (also IPv4-mapped, `::ffff:127.0.0.1`). Everything else, `0.0.0.0` and `::` above all,
 * lets other hosts (and other containers) reach it.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}
