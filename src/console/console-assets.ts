import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const PUBLIC = fileURLToPath(new URL('./public/', import.meta.url));
const resolve = createRequire(import.meta.url).resolve;

/**
 * The console's files, by the name under `/assets/` (and `index.html` for `/`): its own page,
 * script and styles (src/console/public/), and uPlot's from node_modules. Nothing is fetched from
 * elsewhere: the console works offline. Anything else is 404.
 */
const ASSETS: Record<string, { path: () => string; type: string }> = {
  'index.html': { path: () => `${PUBLIC}index.html`, type: 'text/html; charset=utf-8' },
  'console.js': { path: () => `${PUBLIC}console.js`, type: 'text/javascript; charset=utf-8' },
  'console.css': { path: () => `${PUBLIC}console.css`, type: 'text/css; charset=utf-8' },
  'uplot.js': {
    path: () => resolve('uplot/dist/uPlot.esm.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uplot.css': { path: () => resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

/** Read once, on first request. */
const cache = new Map<string, Buffer>();

/** The headers every console page carries: no framing, no script from elsewhere. */
const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
  'content-security-policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
};

/** Answers the console's file `name`, or 404. */
export function sendAsset(response: ServerResponse, name: string): void {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('not found\n');
    return;
  }
  let body = cache.get(name);
  if (!body) cache.set(name, (body = readFileSync(asset.path())));
  response.writeHead(200, {
    ...PAGE_HEADERS,
    'content-type': asset.type,
    'content-length': body.length,
    'cache-control': 'no-cache',
  });
  response.end(body);
}

/** Answers `status` with the HTML `page`. */
export function sendPage(response: ServerResponse, status: number, page: string): void {
  response.writeHead(status, {
    ...PAGE_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(page),
    'cache-control': 'no-store',
  });
  response.end(page);
}

/** `text` with HTML's special characters escaped. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}
