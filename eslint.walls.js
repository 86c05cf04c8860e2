// @ts-check
/**
 * The walls between envdata's folders, kept by lint: `npm test` fails on an import across one.
 * docs/architecture.md ("Walls") explains them. The parts of `src/` (its folders, and the files
 * `types.ts` and `app.ts`) stand in ordered layers; a part may import from itself and from the
 * parts of lower layers, nothing else. ESLint's own `no-restricted-imports` checks every import
 * and re-export, type-only ones included, so a wall holds for types too; no plugin is needed
 * (envdata imports by relative path, so a folder shows in the specifier). It does not read a
 * later `import('…')`: test/architecture/no-cycles.test.ts holds those to the same order.
 */

/**
 * The parts of `src/`, one layer per line, lowest first. A part imports only from lower layers:
 * never upward, and never from a part of its own layer, so two parts cannot import each other
 * and no cycle between folders can be written. Placing a new folder is one line here: in the
 * layer above everything it imports, beside parts it must not import (or on a line of its own).
 */
export const LAYERS = [
  // Foundations: the vocabulary, the errors, the hour math, the settings, the logger.
  ['types.ts'],
  ['errors', 'windows'],
  ['config'],
  // OpenTelemetry traces: the only part that knows the SDK, loaded only when tracing is on;
  // the no-op helpers every hot path calls while it is off.
  ['tracing'],
  ['logging'],
  ['lifecycle', 'geo'],
  // The seams to the outside, side by side so that none reaches another: HTTP to the service,
  // Postgres, and the simulator that stands in for the service (sharing only the gazetteer).
  ['service', 'warehouse', 'simulator'],
  // The steps every dataset's normalizer shares (pure); Redis and BullMQ; a local PostgreSQL;
  // the shape of an answer and how two shapes differ (pure).
  ['normalize', 'queue', 'local', 'upstream'],
  // A call's admission, one door: the pace, the calendar quota, the call budget, the pauses of
  // throttled answers, their counters on either queue backend, and the readers of their usage.
  ['admission'],
  ['locations'],
  // A dataset's definition: its endpoints, its normalization, its fact tables.
  ['datasets'],
  // Runs, gaps, chunks and coverage, and removing locations with what belongs to them.
  ['ledger'],
  // The warehouse as Parquet files (DuckDB): incremental by the change marks, verified against
  // the rows; below the metrics and the status, which report the last export and its lag.
  ['export'],
  ['metrics', 'planner'],
  // Landing a batch of chunks: facts and ledger in one transaction, grouped by the batcher.
  ['landing'],
  // What the composition root lends to the parts it runs (`Uses<…>`) and the resources it opens
  // for them (`ProcessResources`), and its HTTP server.
  ['runtime'],
  // Feeding the queue, reading the status, alerts; and housekeeping (chunk folding, snapshot
  // retention), a component started beside every worker; signed completeness certificates of
  // the warehouse's rows and the ledger's hours.
  ['dispatch', 'status', 'notify', 'housekeeping', 'certify'],
  // OpenLineage events, built from the ledger's snapshots and delivered with the alerts' mechanics.
  ['ingest', 'runs', 'sync', 'declared', 'lineage'],
  ['worker', 'console'],
  // The composition root: use cases take `Uses<…>` from src/runtime/, never the whole `App`.
  ['app.ts'],
  ['demo'],
  // The boundary: it may use everything; nothing uses it.
  ['cli'],
];

/** The index of `part`'s layer in LAYERS. */
export function layerOf(part, layers = LAYERS) {
  const index = layers.findIndex((layer) => layer.includes(part));
  if (index < 0) throw new Error(`src/${part} is in no layer of eslint.walls.js: add it to LAYERS`);
  return index;
}

/** `src/warehouse/` or `src/types.ts`. */
const named = (part) => (part.endsWith('.ts') ? `src/${part}` : `src/${part}/`);

/**
 * Why `part` may not import `other` (a part of its own layer or of a layer above), naming both,
 * their layers and the order.
 */
export function wallMessage(part, other, layers = LAYERS) {
  const [mine, theirs] = [layerOf(part, layers), layerOf(other, layers)];
  const where =
    mine === theirs
      ? `both are in layer ${mine + 1} (${layers[mine].join(', ')})`
      : `${named(other)} is in layer ${theirs + 1}, above ${named(part)} in layer ${mine + 1}`;
  const order = layers.map((layer) => layer.join(', ')).join(' < ');
  return `${named(part)} may not import ${named(other)}: ${where}, and a part imports only from lower layers (eslint.walls.js, lowest first: ${order})`;
}

/** Escapes `text` for a regular expression. */
const literal = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A regular expression matching relative specifiers that reach `part` (a folder or a file of
 * `src/`) from anywhere in `src/`: `../ledger/x.js`, `../../types.js`.
 */
function reaching(part) {
  if (part.endsWith('.ts')) return `^(\\.\\.?/)+${literal(part.replace(/\.ts$/, '.js'))}$`;
  return `^(\\.\\.?/)+${literal(part)}/`;
}

/** The product never imports its tests, benchmarks, scripts or tools. */
const OUTSIDE_SRC = {
  regex: '^(\\.\\./)+(test|bench|scripts|tools)/',
  message: 'the product never imports its tests, benchmarks, scripts or tools (eslint.walls.js)',
};

/**
 * tools/ holds the code only scripts and tests run (the generators of docs/, .env.example and
 * the schema snapshot): it may import the product, never the tests, benchmarks or scripts.
 */
const TOOLS = {
  files: ['tools/**/*.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^(\\.\\./)+(test|bench|scripts)/',
            message: 'tools/ never imports the tests, benchmarks or scripts (eslint.walls.js)',
          },
        ],
      },
    ],
  },
};

/**
 * One ESLint config object per part: every part of its own layer and of the layers above is
 * off limits to it, each with a message naming both parts and the layer order.
 */
export function wallConfigs(layers = LAYERS) {
  const parts = layers.flat();
  const product = {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [OUTSIDE_SRC] }] },
  };
  const walls = parts.map((part) => {
    const closed = parts.filter(
      (other) => other !== part && layerOf(other, layers) >= layerOf(part, layers),
    );
    return {
      files: [part.endsWith('.ts') ? `src/${part}` : `src/${part}/**/*.ts`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              OUTSIDE_SRC,
              ...closed.map((other) => ({
                regex: reaching(other),
                message: wallMessage(part, other, layers),
              })),
            ],
          },
        ],
      },
    };
  });
  return [product, ...walls, TOOLS];
}
