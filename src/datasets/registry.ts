import { DATASETS, type Dataset } from '../types.js';
import type { DatasetDefinition } from './dataset-definition.js';
import { pollenDataset } from './pollen/pollen-dataset.js';
import { weatherDataset } from './weather/weather-dataset.js';

/**
 * The definition of each dataset, by name. `satisfies` holds it to the names of `src/types.ts`
 * when it compiles: a name there without a definition here, a definition here without its name
 * there, or a definition filed under another dataset's name fails `tsc`. Adding a dataset is a
 * folder beside these, a line here and its name in `DATASETS` (docs/architecture.md, "Adding a
 * dataset").
 */
const BY_NAME = {
  pollen: pollenDataset,
  weather: weatherDataset,
} as const satisfies { readonly [Name in Dataset]: DatasetDefinition<Name> };

/** Every dataset's definition, in the order of `DATASETS`. */
export const DATASET_DEFINITIONS: readonly (typeof BY_NAME)[Dataset][] = Object.freeze(
  DATASETS.map((name) => BY_NAME[name]),
);

/** The definition of a dataset. */
export function datasetDefinition(name: Dataset): DatasetDefinition<Dataset> {
  const definition: DatasetDefinition<Dataset> | undefined = BY_NAME[name];
  // Unreachable for a `Dataset`; a name read from untyped input must be checked first.
  if (!definition) throw new TypeError(`unknown dataset ${JSON.stringify(name)}`);
  return definition;
}
