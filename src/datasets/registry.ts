import type { DatasetDefinition } from './dataset-definition.js';
import { DATASET_NAMES } from '../types.js';
import { pollenDataset } from './pollen/pollen-dataset.js';
import { weatherDataset } from './weather/weather-dataset.js';

/**
 * Every dataset envdata ingests, in the order the CLI, plans and status list them. Adding one is
 * a folder beside these, a line here and its name in `DATASET_NAMES` (src/types.ts;
 * docs/architecture.md, "Adding a dataset").
 */
export const DATASET_DEFINITIONS = [pollenDataset, weatherDataset] as const;

/** A dataset's name: `pollen` or `weather` (`envdata.dataset` in Postgres). */
export type Dataset = (typeof DATASET_DEFINITIONS)[number]['name'];

/** The names of every dataset, in registry order. */
export const DATASETS: readonly Dataset[] = Object.freeze(DATASET_DEFINITIONS.map((d) => d.name));

if (DATASETS.join() !== DATASET_NAMES.join()) {
  throw new TypeError(
    `DATASET_NAMES in src/types.ts lists ${DATASET_NAMES.join(', ')} but the registry defines ${DATASETS.join(', ')}: list the same names in the same order`,
  );
}

const BY_NAME = new Map<string, DatasetDefinition<Dataset>>(
  DATASET_DEFINITIONS.map((d) => [d.name, d]),
);

/** The definition of a dataset. */
export function datasetDefinition(name: Dataset): DatasetDefinition<Dataset> {
  const definition = BY_NAME.get(name);
  // Unreachable for a `Dataset`; a name read from untyped input must be checked first.
  if (!definition) throw new TypeError(`unknown dataset ${JSON.stringify(name)}`);
  return definition;
}
