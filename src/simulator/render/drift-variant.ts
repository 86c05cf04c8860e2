/**
 * A change of format the service could make overnight, without a changelog (issue 36, "drift
 * seen"): not a recorded shape but one envdata must notice. Sent in every weather record of
 * every weather answer (history, forecast, latest) while set; `null` (default) sends none.
 * Tests switch it mid-run (`setOptions({ drift })`, `POST /__admin/options`).
 */
export interface WeatherDrift {
  /** A field every record gains, with the value 1: `"smoke":1`. */
  readonly addField?: string;
  /** `humidity` left out of every record: a field that stops coming. */
  readonly dropHumidity?: boolean;
  /** `humidity` as text with its unit, `"81 %"` (the percentage): a type change. */
  readonly humidityAsText?: boolean;
}

const HUMIDITY = /"humidity":(-?[0-9.]+),/;

/** `record` (one weather record as JSON text, `renderWeatherRecord`) with `drift` applied. */
export function applyWeatherDrift(record: string, drift: WeatherDrift | null): string {
  if (drift === null) return record;
  let text = record;
  if (drift.dropHumidity) text = text.replace(HUMIDITY, '');
  else if (drift.humidityAsText) {
    text = text.replace(HUMIDITY, (_, value: string) => {
      const n = Number(value);
      return `"humidity":"${n > 1 ? n : Math.round(n * 100)} %",`;
    });
  }
  if (drift.addField !== undefined) text = `${text.slice(0, -1)},"${drift.addField}":1}`;
  return text;
}
