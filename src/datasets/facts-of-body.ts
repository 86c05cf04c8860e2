import type { Window } from '../types.js';
import type { LandingFacts } from '../warehouse/fact-table.js';
import { datasetDefinition, type Dataset } from './registry.js';

/**
 * A history body as it lands: parsed and normalized to `window` by its dataset's definition,
 * without calling the service. How `envdata rebuild` reads the raw payload archive.
 */
export function factsOfBody(dataset: Dataset, rawBody: string, window: Window): LandingFacts {
  const definition = datasetDefinition(dataset);
  return definition.toFacts(definition.parseBody(rawBody), window);
}
