import { WEATHER_ICONS, type WeatherIcon } from '../../types.js';

const SYNONYMS: Readonly<Record<string, WeatherIcon>> = {
  overcast: 'cloudy',
  sleet: 'snow',
  hail: 'snow',
  drizzle: 'rain',
  showers: 'rain',
  thunderstorm: 'rain',
  mist: 'fog',
  haze: 'fog',
  wind: 'clear',
};

/**
 * Maps an icon as sent (`partly-cloudy-day`, `clear-night`, `rain`) to one of the interface's
 * six values; `null` when it names none of them (the raw value is kept beside it).
 */
export function mapWeatherIcon(raw: string | undefined): WeatherIcon | null {
  if (raw === undefined) return null;
  const base = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-(day|night)$/, '');
  if ((WEATHER_ICONS as readonly string[]).includes(base)) return base as WeatherIcon;
  return SYNONYMS[base] ?? null;
}
