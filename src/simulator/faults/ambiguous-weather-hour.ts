import type { WeatherHour } from '../data/generate-weather-hour.js';
import { percentSharesOf, type ShapeVariants } from '../render/shape-variants.js';

/**
 * The hour an `ambiguous` fault sends: `humidity` and `cloudCover` rendered as `1` and
 * `precipProbability` as `0`, each in its field's unit (1 % where the shapes write the field as
 * a percentage, else 100 %), every other value as generated. An answer of such hours cannot
 * tell fractions from percentages in any field.
 */
export function ambiguousWeatherHour(hour: WeatherHour, shapes: ShapeVariants): WeatherHour {
  const percent = percentSharesOf(shapes);
  return {
    ...hour,
    humidity: percent.humidity ? 0.01 : 1,
    cloudCover: percent.cloudCover ? 0.01 : 1,
    precipProbability: 0,
  };
}
