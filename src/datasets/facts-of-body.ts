import type { Dataset, ShareUnit, Window } from '../types.js';
import type { LandingFacts } from '../warehouse/fact-table.js';
import { datasetDefinition } from './registry.js';

/** A body's facts, and the share unit the body told by itself (`shareUnitOf`). */
export interface BodyFacts {
  readonly facts: LandingFacts;
  readonly shareUnit: ShareUnit | undefined;
}

/**
 * A history body as it lands: parsed and normalized to `window` by its dataset's definition,
 * without calling the service, its shares read in the unit it tells, else in `remembered`. How
 * `envdata rebuild` reads the raw payload archive.
 */
export function factsOfBody(
  dataset: Dataset,
  rawBody: string,
  window: Window,
  remembered?: ShareUnit,
): LandingFacts {
  return readBody(dataset, rawBody, window, remembered).facts;
}

/** `factsOfBody`, with the share unit the body told. */
export function readBody(
  dataset: Dataset,
  rawBody: string,
  window: Window,
  remembered?: ShareUnit,
): BodyFacts {
  const definition = datasetDefinition(dataset);
  const payload = definition.parseBody(rawBody);
  const verdict = definition.shareUnitOf?.(payload);
  const shareUnit = verdict === 'fraction' || verdict === 'percent' ? verdict : undefined;
  return { facts: definition.toFacts(payload, window, shareUnit ?? remembered), shareUnit };
}
