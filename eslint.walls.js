// @ts-check
/**
 * The walls between envdata's folders, kept by lint: `npm test` fails on an import across one.
 * docs/architecture.md ("Walls") explains them. Each folder of `src/` lists what it may import;
 * anything else under `src/` is off limits to it (`import-x/no-restricted-paths` resolves every
 * import, type-only ones included, so a wall holds for types too).
 */

/** Foundations: depended on by everything, depending on nothing above them. */
const FOUNDATION = ['types.ts', 'errors', 'windows', 'logging'];

/** What each part of `src/` may import besides itself and the foundations. */
export const MAY_IMPORT = {
  'types.ts': [],
  errors: [],
  windows: ['types.ts'],
  logging: ['config', 'errors'],
  config: [],
  geo: [],
  lifecycle: [],
  // The service: HTTP requests and the parsing of bodies. Never storage, never the queue.
  service: ['lifecycle'],
  // Parsed payloads become fact rows: pure functions.
  normalize: ['service'],
  // Rows meet Postgres; it takes fact rows, never payloads.
  warehouse: ['config', 'lifecycle', 'normalize'],
  ledger: ['warehouse', 'locations'],
  datasets: ['service', 'normalize', 'warehouse'],
  locations: ['geo', 'service', 'warehouse', 'ledger'],
  queue: ['lifecycle', 'warehouse', 'config'],
  planner: ['config', 'datasets', 'ledger', 'locations', 'warehouse'],
  dispatch: ['config', 'ledger', 'queue', 'warehouse', 'planner'],
  ingest: ['datasets', 'dispatch', 'ledger', 'service', 'warehouse', 'normalize', 'queue'],
  worker: [
    'config',
    'datasets',
    'dispatch',
    'ingest',
    'lifecycle',
    'queue',
    'service',
    'warehouse',
  ],
  runs: ['config', 'dispatch', 'ledger', 'locations', 'planner', 'queue', 'warehouse'],
  sync: [
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
  status: ['config', 'datasets', 'ledger', 'queue', 'warehouse'],
  // The simulator stands in for the service: it shares the gazetteer, never the product's parts.
  simulator: ['geo', 'lifecycle'],
  'app.ts': ['config', 'lifecycle', 'queue', 'service', 'warehouse', 'worker', 'sync'],
  demo: ['app.ts', 'ledger', 'locations', 'runs', 'warehouse', 'worker', 'config', 'simulator'],
  // The CLI is the boundary: it may use everything; nothing uses it.
  cli: ['*'],
};

/** `import-x/no-restricted-paths` zones: for each part, every other part it may not import. */
export function wallZones(parts = MAY_IMPORT) {
  const all = Object.keys(parts);
  return all.flatMap((part) => {
    const allowed = parts[part];
    if (allowed.includes('*')) return [];
    const open = new Set([part, ...allowed, ...(FOUNDATION.includes(part) ? [] : FOUNDATION)]);
    const closed = all.filter((other) => !open.has(other));
    if (closed.length === 0) return [];
    return [
      {
        target: `./src/${part}`,
        from: closed.map((other) => `./src/${other}`),
        message: `src/${part} may import only ${[...open].filter((p) => p !== part).join(', ') || 'nothing else in src/'} (eslint.walls.js)`,
      },
    ];
  });
}
