import { WEATHER_ICONS } from '../../types.js';
import { smoothNoise, unit3 } from './deterministic-hash.js';
import { precipitationSignal } from './precipitation-signal.js';
import { dayOfYear, HOUR_S, solarHour, sunElevationSine } from './time-math.js';
import type { WeatherClimate } from './weather-climate.js';

/**
 * One hour of weather in SI units (°C, m/s, hPa, km, mm/h; humidity and cloud cover as
 * fractions), keys in the order the service sends them.
 */
export interface WeatherHour {
  time: number;
  temperature: number;
  apparentTemperature: number;
  dewPoint: number;
  humidity: number;
  pressure: number;
  windSpeed: number;
  windGust: number;
  windBearing: number;
  cloudCover: number;
  visibility: number;
  uvIndex: number;
  ozone: number;
  precipIntensity: number;
  precipProbability: number;
  precipType: 'rain' | 'snow';
  summary: string;
  /** One of `WEATHER_ICONS`, with `-day`/`-night` for `clear` and `partly-cloudy`. */
  icon: string;
}

const SALT = {
  synoptic: 0x5a1,
  weekly: 0x5a2,
  cloudFast: 0x5a3,
  cloudSlow: 0x5a4,
  wind: 0x5a6,
  bearing: 0x5a7,
  pressure: 0x5a8,
  gust: 0x5a9,
  humidity: 0x5aa,
  forecast: 0x5ab,
  overcast: 0x5ac,
} as const;

/** Above it (plus or minus 0.08 with the season) the sky is overcast: see `overcast`. */
const OVERCAST_THRESHOLD = 0.84;

const [CLOUDY, PARTLY, CLEAR, SNOW, RAIN, FOG] = WEATHER_ICONS;

/**
 * Generates one hour of weather for a location: a seasonal cycle around the climate's January
 * and July means (`weatherClimateOf`), a day–night cycle damped by clouds, and weather systems
 * that drift over days (value noise on the location's quarter-degree cell). Precipitation falls
 * in the climate's share of wet hours (more of them in the wet season), in spells of a few hours
 * that cluster into wet days (`precipitationSignal`), at intensities whose mean makes up the
 * climate's annual total. Derived quantities agree with each other: clouds thicken where rain is
 * near, dew point from temperature and humidity (Magnus), apparent temperature from wind chill
 * or humidex, UV from the sun's elevation and clouds, icon and summary from clouds, rain and fog.
 *
 * `issuedAtHour`, for forecasts, perturbs temperature and wind by an error that grows with the
 * lead time; omit it for observations.
 */
export function generateWeatherHour(
  climate: WeatherClimate,
  epochHour: number,
  issuedAtHour?: number,
): WeatherHour {
  const seed = climate.cellSeed;
  const doy = dayOfYear(epochHour);
  const hour = solarHour(epochHour, climate.lng);
  const sunSine = sunElevationSine(climate.lat, doy, hour);

  const seasonal = -Math.cos((2 * Math.PI * (doy - climate.coldestDay)) / 365.2425);
  const synoptic = smoothNoise(seed, SALT.synoptic, epochHour, 36) - 0.5;
  const weekly = smoothNoise(seed, SALT.weekly, epochHour, 168) - 0.5;

  // Wet hours: the top `wetShare` of a uniform signal; the season tilts the share towards
  // summer (monsoons, continental showers) or winter (Mediterranean climates).
  const signal = precipitationSignal(seed, epochHour);
  const wetShare = climate.wetHourShare * (1 + climate.precipitationSeasonality * seasonal);
  const excess = wetShare > 0 ? (signal - (1 - wetShare)) / wetShare : -1;
  const precipIntensity = excess > 0 ? round2(climate.wetHourMeanMm * wetHourIntensity(excess)) : 0;
  const raining = precipIntensity > 0;

  // A stratus deck: the sky stays fully overcast (cloud cover exactly 1) while a slow signal
  // sits above its threshold, for hours to days, most often in the cold season.
  const overcast =
    smoothNoise(seed, SALT.overcast, epochHour, 40) > OVERCAST_THRESHOLD + 0.08 * seasonal;
  const cloud = overcast
    ? 1
    : clamp01(
        Math.max(
          raining ? 0.75 + 0.25 * Math.min(1, 2 * excess) : 0,
          0.75 *
            (0.6 * smoothNoise(seed, SALT.cloudFast, epochHour, 10) +
              0.4 * smoothNoise(seed, SALT.cloudSlow, epochHour, 48)) +
            0.35 * signal -
            0.05 +
            (climate.wetness - 0.5) * 0.6 -
            synoptic * 0.3,
        ),
      );
  const daily = Math.cos((2 * Math.PI * (hour - 15)) / 24);
  let temperature =
    climate.meanTemperature +
    climate.seasonalAmplitude * seasonal +
    climate.diurnalAmplitude * (1 - 0.5 * cloud) * daily +
    climate.variability * (synoptic * 8 + weekly * 6);

  const nearRain = wetShare > 0 ? clamp01((signal - (1 - 4 * wetShare)) / (3 * wetShare)) : 0;
  const precipProbability = round2(
    raining ? 0.55 + 0.45 * Math.min(1, 3 * excess) : 0.5 * nearRain,
  );

  let windSpeed = climate.windiness * (0.3 + 1.2 * smoothNoise(seed, SALT.wind, epochHour, 8));
  if (issuedAtHour !== undefined && epochHour > issuedAtHour) {
    const spread = Math.sqrt(epochHour - issuedAtHour);
    const error = unit3(climate.seed, issuedAtHour, epochHour ^ SALT.forecast) - 0.5;
    temperature += error * 0.35 * spread;
    windSpeed = Math.max(0, windSpeed * (1 + error * 0.05 * spread));
  }
  const windGust = windSpeed * (1.3 + 0.6 * unit3(climate.seed, epochHour, SALT.gust));
  const windBearing = Math.floor(smoothNoise(seed, SALT.bearing, epochHour, 30) * 720) % 360;

  const humidity = Math.max(
    0.12,
    Math.min(
      1,
      0.45 +
        0.4 * cloud +
        (raining ? 0.15 : 0) -
        0.12 * daily +
        0.06 * (unit3(climate.seed, epochHour, SALT.humidity) - 0.5),
    ),
  );
  const gamma = Math.log(humidity) + (17.62 * temperature) / (243.12 + temperature);
  const dewPoint = (243.12 * gamma) / (17.62 - gamma);
  const pressure = 1013 + (smoothNoise(seed, SALT.pressure, epochHour, 48) - 0.5) * 40 - cloud * 6;

  const foggy = humidity > 0.93 && windSpeed < 2.5 && !raining && hour > 2 && hour < 10;
  const visibility = foggy
    ? 0.2 + (1 - humidity) * 10
    : raining
      ? 9 - Math.min(6, precipIntensity)
      : Math.min(16.09, 10 + 8 * (1 - humidity));
  const uvIndex = sunSine > 0 ? Math.round(12 * Math.pow(sunSine, 1.5) * (1 - 0.6 * cloud)) : 0;
  const ozone =
    climate.ozone + 25 * Math.sin((2 * Math.PI * (doy - 60)) / 365.2425) + synoptic * 30;

  const snowing = temperature <= 1;
  const day = sunSine > 0;
  let icon: string;
  let summary: string;
  if (raining) {
    icon = snowing ? SNOW : RAIN;
    const strength = precipIntensity < 1 ? 'Light ' : precipIntensity > 4 ? 'Heavy ' : '';
    summary = `${strength}${snowing ? 'Snow' : 'Rain'}`;
  } else if (foggy) {
    icon = FOG;
    summary = 'Foggy';
  } else if (cloud > 0.85) {
    icon = CLOUDY;
    summary = 'Overcast';
  } else if (cloud > 0.3) {
    icon = `${PARTLY}-${day ? 'day' : 'night'}`;
    summary = cloud > 0.6 ? 'Mostly Cloudy' : 'Partly Cloudy';
  } else {
    icon = `${CLEAR}-${day ? 'day' : 'night'}`;
    summary = 'Clear';
  }

  return {
    time: epochHour * HOUR_S,
    temperature: round2(temperature),
    apparentTemperature: round2(apparentTemperature(temperature, windSpeed, dewPoint)),
    dewPoint: round2(dewPoint),
    humidity: round2(humidity),
    pressure: Math.round(pressure * 10) / 10,
    windSpeed: round2(windSpeed),
    windGust: round2(windGust),
    windBearing,
    cloudCover: round2(cloud),
    visibility: round2(visibility),
    uvIndex,
    ozone: round2(ozone),
    precipIntensity,
    precipProbability,
    precipType: snowing ? 'snow' : 'rain',
    summary,
    icon,
  };
}

/** Wind chill below 10 °C with wind, humidex above 27 °C, else the air temperature. */
function apparentTemperature(temperature: number, windSpeed: number, dewPoint: number): number {
  const kmh = windSpeed * 3.6;
  if (temperature <= 10 && kmh > 4.8) {
    const v = Math.pow(kmh, 0.16);
    return 13.12 + 0.6215 * temperature - 11.37 * v + 0.3965 * temperature * v;
  }
  if (temperature >= 27) {
    const vapour = 6.11 * Math.exp(5417.753 * (1 / 273.16 - 1 / (273.15 + dewPoint)));
    return temperature + 0.5555 * (vapour - 10);
  }
  return temperature;
}

/**
 * The intensity of a wet hour as a multiple of the climate's mean, from how far (uniform in
 * [0, 1)) the precipitation signal exceeds its threshold: 0.3 plus 0.7 times an exponential
 * variable of mean 1, so a wet hour brings from a third of the mean (drizzle at the edge of a
 * spell) to several times it (the core of a shower), and the mean is kept. A plain exponential
 * would make a year's total swing by twice as much, outside the tolerance of the normals.
 */
function wetHourIntensity(excess: number): number {
  return 0.3 + 0.7 * Math.min(10, -Math.log(1 - excess));
}

function clamp01(x: number): number {
  return x < 0 ? 0 : x > 1 ? 1 : x;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
