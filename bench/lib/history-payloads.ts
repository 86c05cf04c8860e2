import type { Location } from '../../src/locations/location.js';
import { answerPollen } from '../../src/simulator/http/answer-pollen.js';
import { answerWeather } from '../../src/simulator/http/answer-weather.js';
import { DATA_NOT_AVAILABLE_BODY } from '../../src/simulator/render/response-text.js';
import { CURRENT_SHAPES } from '../../src/simulator/render/shape-variants.js';
import { SIMULATOR_ENDPOINTS } from '../../src/simulator/simulator-endpoints.js';
import type { Dataset, Window } from '../../src/types.js';
import type { ChunkLanding } from '../../src/ledger/landing-decision.js';
import { landingOfBody } from '../../test/fixtures/landing-of-body.js';

function historyEndpoint(product: Dataset) {
  const endpoint = SIMULATOR_ENDPOINTS.find(
    (e) => e.product === product && e.operation === `${product}-history` && e.by === 'lat-lng',
  );
  if (!endpoint) throw new Error(`the simulator has no ${product} history endpoint by lat/lng`);
  return endpoint;
}

const HISTORY = { pollen: historyEndpoint('pollen'), weather: historyEndpoint('weather') };

/** `YYYY-MM-DD hh:mm:ss`, as the service client sends `from` and `to`. */
const serviceTime = (d: Date): string => d.toISOString().slice(0, 19).replace('T', ' ');

/**
 * The body the simulator answers a history request of `dataset` at `location` over `window`
 * with (the client's own query: `units=si` for weather), rendered by the simulator's own
 * generators and renderers, without HTTP. Values are a pure function of (location, hour), so
 * asking again gives the identical body.
 */
export function historyBody(dataset: Dataset, location: Location, window: Window): string {
  const params = new URLSearchParams({
    lat: String(location.lat),
    lng: String(location.lng),
    from: serviceTime(window.from),
    to: serviceTime(window.to),
  });
  if (dataset === 'weather') params.set('units', 'si');
  const ctx = {
    endpoint: HISTORY[dataset],
    params,
    shapes: CURRENT_SHAPES,
    nowMs: Date.now(),
    maxRangeHours: Number.MAX_SAFE_INTEGER,
  };
  const answer = dataset === 'weather' ? answerWeather(ctx) : answerPollen(ctx);
  if (answer.status !== 200) {
    throw new Error(`the simulator answered ${answer.status} for ${dataset}: ${answer.body}`);
  }
  return answer.body;
}

/** One chunk to land, as a worker hands it to the FactWriter after a successful fetch. */
export interface ChunkToLand {
  readonly chunkId: number;
  readonly runId: number;
  readonly dataset: Dataset;
  readonly location: Location;
  readonly window: Window;
}

/**
 * The landing of `chunk`: its history body generated, parsed and normalized as `fetchChunk` hands
 * it to the FactWriter ("Data not available!" as a `no_data` outcome). `revise`, when given,
 * rewrites a body with data first (a revised answer), as the service would have sent it.
 */
export function landingOf(chunk: ChunkToLand, revise?: (body: string) => string): ChunkLanding {
  const body = historyBody(chunk.dataset, chunk.location, chunk.window);
  const { location, ...rest } = chunk;
  const noData = body === DATA_NOT_AVAILABLE_BODY;
  return landingOfBody(
    { ...rest, locationId: location.locationId },
    noData ? null : revise ? revise(body) : body,
  );
}
