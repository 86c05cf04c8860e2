import type { PollenType, RiskLevel, SpeciesCategory, WeatherIcon } from '../types.js';

/** A fact row: every fact table is keyed by location and UTC hour (its partition key). */
export interface FactRow {
  readonly observedAt: Date;
}

/** One pollen type at one hour: `Count.<type>_pollen` and `Risk.<type>_pollen` as sent. */
export interface PollenTypeRow {
  readonly observedAt: Date;
  readonly pollenType: PollenType;
  readonly count: number | null;
  readonly riskLevel: RiskLevel | null;
}

/** One species (or the `Others` count, category `other`) at one hour. */
export interface PollenSpeciesRow {
  readonly observedAt: Date;
  readonly category: SpeciesCategory;
  readonly species: string;
  readonly count: number;
  readonly riskLevel: RiskLevel | null;
}

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
}

/** A record kept out of the facts, with why; it lands in `envdata.quarantine`. */
export interface QuarantinedRecord {
  readonly recordIndex: number;
  readonly raw: unknown;
  readonly reason: string;
  /** The UTC hour the record was for, when it had a readable one. */
  readonly hour?: Date;
}

export interface NormalizeStats {
  /** Records whose hour fell outside the chunk's window. */
  readonly outsideWindow: number;
  /** Identical repeats of an hour already in the payload, collapsed quietly. */
  readonly duplicateHours: number;
  /** Hours sent more than once with different values: every copy quarantined. */
  readonly conflictHours: number;
  /** Hours (epoch ms) whose records were quarantined and that have no fact row. */
  readonly quarantinedHours: ReadonlySet<number>;
}

export interface NormalizedPollen extends NormalizeStats {
  readonly typeRows: readonly PollenTypeRow[];
  readonly speciesRows: readonly PollenSpeciesRow[];
  readonly quarantined: readonly QuarantinedRecord[];
}

export interface NormalizedWeather extends NormalizeStats {
  readonly rows: readonly WeatherRow[];
  readonly quarantined: readonly QuarantinedRecord[];
}
