import type { WeatherIcon } from '../../types.js';
import type { NormalizeStats, QuarantinedRecord } from '../../warehouse/fact-rows.js';

/** One hour of weather in SI units; fractions in 0–1; the icon mapped, the raw one kept. */
export interface WeatherRow {
  readonly observedAt: Date;
  readonly temperatureC: number | null;
  readonly apparentTemperatureC: number | null;
  readonly dewPointC: number | null;
  readonly humidityFraction: number | null;
  readonly pressureHpa: number | null;
  readonly windSpeedMs: number | null;
  readonly windGustMs: number | null;
  readonly windBearingDeg: number | null;
  readonly cloudCoverFraction: number | null;
  readonly visibilityKm: number | null;
  readonly uvIndex: number | null;
  readonly ozoneDu: number | null;
  readonly precipIntensityMmH: number | null;
  readonly precipProbabilityFraction: number | null;
  readonly precipType: string | null;
  readonly summary: string | null;
  readonly icon: WeatherIcon | null;
  readonly iconRaw: string | null;
  /**
   * Only on the rows of a latest reading the service sent without a stamp: `observedAt` is the
   * hour it was fetched in (`stampAtFetch`), stored as `stamped_at_fetch`.
   */
  readonly stampedAtFetch?: true;
}

/** A weather payload as fact rows (`normalizeWeather`), and what was quarantined. */
export interface NormalizedWeather extends NormalizeStats {
  readonly rows: readonly WeatherRow[];
  readonly quarantined: readonly QuarantinedRecord[];
}
