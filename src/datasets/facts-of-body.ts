import { toldShareUnits } from '../normalize/decide-share-unit.js';
import type { Dataset, ShareUnits, Window } from '../types.js';
import type { LandingFacts } from '../warehouse/fact-table.js';
import { datasetDefinition } from './registry.js';

/** A body's facts, and the share units the body told by itself, field by field (`shareUnitOf`). */
export interface BodyFacts {
  readonly facts: LandingFacts;
  readonly shareUnits: ShareUnits;
}

/**
 * A history body as it lands: parsed and normalized to `window` by its dataset's definition,
 * without calling the service, each share field read in the unit it tells, else in the unit
 * `remembered` holds for it. How `envdata rebuild` reads the raw payload archive.
 */
export function factsOfBody(
  dataset: Dataset,
  rawBody: string,
  window: Window,
  remembered?: ShareUnits,
): LandingFacts {
  return readBody(dataset, rawBody, window, remembered).facts;
}

/** `factsOfBody`, with the share units the body told. */
export function readBody(
  dataset: Dataset,
  rawBody: string,
  window: Window,
  remembered?: ShareUnits,
): BodyFacts {
  const definition = datasetDefinition(dataset);
  const payload = definition.parseBody(rawBody);
  const verdicts = definition.shareUnitOf?.(payload);
  const shareUnits = verdicts ? toldShareUnits(verdicts) : {};
  return { facts: definition.toFacts(payload, window, remembered), shareUnits };
}
