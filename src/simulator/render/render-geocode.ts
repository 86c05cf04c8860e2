import type { GeoPlace } from '../../geo/geo-place.js';
import { normalizePlaceName } from '../../geo/normalize-place-name.js';
import { successMessage } from './success-message.js';
import type { ShapeVariants } from './shape-variants.js';

/**
 * Geocoding and reverse geocoding: `{"message", "data": [{lat, lng, address: {label,
 * countryCode, countryName, state, city, postalCode}}]}`, best match first. The gazetteer has no
 * postal codes: `postalCode` is `""`.
 */
export function renderGeocodeBody(places: readonly GeoPlace[], shapes: ShapeVariants): string {
  return JSON.stringify({
    message: successMessage(shapes),
    data: places.map((place) => ({
      lat: shapes.stringCoordinates ? String(place.lat) : place.lat,
      lng: shapes.stringCoordinates ? String(place.lng) : place.lng,
      address: {
        label: labelOf(place),
        countryCode: place.countryCode,
        countryName: place.countryName,
        state: place.state,
        city: place.name,
        postalCode: '',
      },
    })),
  });
}

/** `Berlin, Germany`; `Springfield, Illinois, United States` when the state adds something. */
function labelOf(place: GeoPlace): string {
  const showState =
    place.state !== '' && !normalizePlaceName(place.state).includes(normalizePlaceName(place.name));
  return [place.name, showState ? place.state : undefined, place.countryName]
    .filter((part) => part !== undefined)
    .join(', ');
}
