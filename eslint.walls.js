// @ts-check
/**
 * The walls between envdata's folders, kept by lint: `npm test` fails on an import across one.
 * docs/architecture.md ("Walls") explains them. Each folder of `src/` lists what it may import;
 * anything else under `src/` is off limits to it. ESLint's own `no-restricted-imports` checks
 * every import and re-export, type-only ones included, so a wall holds for types too; no plugin
 * is needed (envdata imports by relative path, so a folder shows in the specifier).
 */

/** Foundations: depended on by everything, depending on nothing above them. */
const FOUNDATION = ['types.ts', 'errors', 'windows', 'logging'];

/**
 * What each part of `src/` may import besides itself and the foundations. A part is a folder
 * or a file of `src/`; `folder/file.ts` opens one file of a folder and not the rest.
 */
export const MAY_IMPORT = {
  'types.ts': ['datasets/registry.ts'],
  errors: [],
  windows: ['types.ts'],
  logging: ['config', 'errors'],
  config: [],
  geo: [],
  lifecycle: [],
  // The service: HTTP requests and the parsing of bodies. Never storage, never the queue.
  service: ['lifecycle'],
  // Parsed payloads become the warehouse's fact rows: pure functions.
  normalize: ['service', 'warehouse'],
  // Rows meet Postgres. It takes fact rows: it never parses nor normalizes a payload.
  warehouse: ['config', 'lifecycle'],
  // A dataset's definition: its endpoints, its normalization, its fact tables.
  datasets: ['service', 'normalize', 'warehouse', 'locations'],
  ledger: ['datasets', 'warehouse', 'locations'],
  locations: ['datasets', 'geo', 'service', 'warehouse', 'ledger'],
  queue: ['lifecycle', 'warehouse', 'config'],
  planner: ['config', 'datasets', 'ledger', 'locations', 'warehouse'],
  // What the composition root lends to the parts it runs (`Uses<…>`), and its HTTP server.
  app: ['config', 'lifecycle', 'metrics', 'queue', 'service', 'warehouse'],
  // Prometheus metrics and the per-minute call counts: what the hot paths report, what a
  // scrape reads from the ledger and the queue.
  metrics: ['app', 'config', 'ledger', 'lifecycle', 'queue', 'warehouse'],
  dispatch: ['app', 'config', 'datasets', 'ledger', 'queue', 'warehouse', 'planner'],
  // Fetching a chunk or a snapshot and landing it: where the data flows.
  ingest: [
    'datasets',
    'dispatch',
    'ledger',
    'metrics',
    'service',
    'warehouse',
    'normalize',
    'queue',
  ],
  worker: [
    'app',
    'config',
    'dispatch',
    'ingest',
    'lifecycle',
    'metrics',
    'queue',
    'service',
    'warehouse',
  ],
  runs: ['app', 'config', 'dispatch', 'ledger', 'locations', 'planner', 'queue', 'warehouse'],
  sync: [
    'app',
    'config',
    'datasets',
    'dispatch',
    'ledger',
    'lifecycle',
    'locations',
    'planner',
    'queue',
    'warehouse',
  ],
  status: ['app', 'config', 'datasets', 'ledger', 'queue', 'warehouse'],
  // Alerts: the dispatcher that posts the outbox to ENVDATA_NOTIFY_URL, and the periodic checks.
  notify: ['app', 'config', 'datasets', 'ledger', 'lifecycle', 'metrics', 'queue', 'warehouse'],
  // The operations console (`envdata serve`): its pages, its JSON API and the queues board.
  console: [
    'app',
    'config',
    'datasets',
    'ledger',
    'notify',
    'queue',
    'runs',
    'status',
    'warehouse',
  ],
  // The simulator stands in for the service: it shares the gazetteer, never the product's parts.
  simulator: ['geo', 'lifecycle'],
  'app.ts': [
    'app',
    'config',
    'lifecycle',
    'metrics',
    'queue',
    'service',
    'warehouse',
    'worker',
    'sync',
    'notify',
  ],
  // A local PostgreSQL to try envdata on (`envdata local`): its own processes and files.
  local: ['warehouse'],
  demo: ['app.ts', 'datasets', 'ledger', 'locations', 'runs', 'warehouse', 'worker', 'config'],
  // The CLI is the boundary: it may use everything; nothing uses it.
  cli: ['*'],
};

/** Escapes `text` for a regular expression. */
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A regular expression matching relative specifiers that reach `part` (a folder or a file of
 * `src/`) from anywhere in `src/`, `except` files of it: `../ledger/x.js`, `../../types.js`.
 */
function reaching(part, except = []) {
  const file = part.endsWith('.ts');
  const name = literal(file ? part.replace(/\.ts$/, '.js') : part);
  const skip = except.map((f) => `(?!${literal(f.replace(/\.ts$/, '.js'))}$)`).join('');
  return file ? `^(\\.\\.?/)+${name}$` : `^(\\.\\.?/)+${name}/${skip}`;
}

/** One ESLint config object per part: the imports it may not make, and why. */
export function wallConfigs(parts = MAY_IMPORT) {
  const all = Object.keys(parts);
  const product = {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(test|bench|scripts)/',
              message:
                'the product never imports its tests, benchmarks or scripts (eslint.walls.js)',
            },
          ],
        },
      ],
    },
  };
  const walls = all.flatMap((part) => {
    const allowed = parts[part];
    if (allowed.includes('*')) return [];
    const open = new Set([part, ...allowed, ...(FOUNDATION.includes(part) ? [] : FOUNDATION)]);
    /** Files opened in a folder that stays closed otherwise: `{ folder: ['file.ts'] }`. */
    const files = new Map();
    for (const entry of allowed) {
      const [folder, file] = entry.split('/');
      if (file) files.set(folder, [...(files.get(folder) ?? []), file]);
    }
    const closed = all.filter((other) => !open.has(other));
    if (closed.length === 0) return [];
    const message = `src/${part} may import only ${[...open].filter((p) => p !== part).join(', ') || 'nothing else in src/'} (eslint.walls.js)`;
    return [
      {
        files: [part.endsWith('.ts') ? `src/${part}` : `src/${part}/**/*.ts`],
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                ...product.rules['no-restricted-imports'][1].patterns,
                ...closed.map((other) => ({ regex: reaching(other, files.get(other)), message })),
              ],
            },
          ],
        },
      },
    ];
  });
  return [product, ...walls];
}
