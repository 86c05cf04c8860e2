/** Gazetteer, pollen region and time zone helpers, shared by the simulator and the warehouse. */
export { countryNameOf } from './country-name-of.js';
export { countryOfPoint, type CountryOfPoint } from './country-of-point.js';
export { isCountryCode } from './is-country-code.js';
export { geocodePlace, type GeocodePlaceOptions } from './geocode-place.js';
export type { GeoPlace, GeoPlaceNearby } from './geo-place.js';
export { loadGazetteer, type Gazetteer } from './load-gazetteer.js';
export { nearestPlace } from './nearest-place.js';
export { normalizePlaceName } from './normalize-place-name.js';
export { pollenRegionOf } from './pollen-region-of.js';
export { reverseGeocode, type ReverseGeocodeOptions } from './reverse-geocode.js';
export { timezoneOf } from './timezone-of.js';
