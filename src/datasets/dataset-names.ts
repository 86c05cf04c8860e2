/**
 * The name of every dataset, in registry order, without its definition: what the CLI checks
 * `--dataset` against and lists in `--help` before it loads anything (a definition brings its
 * parser, its tables and so pg and Kysely). registry.ts refuses to load when its definitions
 * name other datasets, so a dataset added there and not here fails every test at once.
 */
export const DATASET_NAMES = ['pollen', 'weather'] as const;
