import type { WeatherHour } from '../data/generate-weather-hour.js';
import type { ShapeVariants } from '../render/shape-variants.js';

/**
 * The hour an `ambiguous` fault sends: `humidity` and `cloudCover` rendered as `1` and
 * `precipProbability` as `0` in the answer's unit (1 % with `percentages`, else 100 %), every
 * other value as generated. An answer of such hours cannot tell fractions from percentages.
 */
export function ambiguousWeatherHour(hour: WeatherHour, shapes: ShapeVariants): WeatherHour {
  const one = shapes.percentages ? 0.01 : 1;
  return { ...hour, humidity: one, cloudCover: one, precipProbability: 0 };
}
