import { geocodePlace } from '../../geo/geocode-place.js';
import { reverseGeocode } from '../../geo/reverse-geocode.js';
import { renderGeocodeBody } from '../render/render-geocode.js';
import { DATA_NOT_AVAILABLE_BODY } from '../render/response-text.js';
import type { Answer, RequestContext } from './answer.js';
import { readCoordinates, readPlace, rejectParameter } from './read-query.js';

/** Most matches in one geocoding answer. */
const MATCHES = 5;

/** Answers geocoding by place and reverse geocoding by coordinates, over the real gazetteer. */
export function answerGeocode(ctx: RequestContext): Answer {
  const { params, endpoint, shapes } = ctx;
  rejectParameter(params, 'units', 'weather');
  rejectParameter(params, 'speciesRisk', 'pollen');
  const places =
    endpoint.operation === 'geocode'
      ? geocodePlace(readPlace(params), { limit: MATCHES })
      : (() => {
          const { lat, lng } = readCoordinates(params);
          return reverseGeocode(lat, lng, { limit: MATCHES });
        })();
  if (places.length === 0) return { status: 200, body: DATA_NOT_AVAILABLE_BODY };
  return { status: 200, body: renderGeocodeBody(places, shapes) };
}
