import type { ServedHours } from '../data/served-hours.js';
import type { RecordFault } from '../faults/apply-record-fault.js';
import type { WeatherDrift } from '../render/drift-variant.js';
import type { ShapeVariants } from '../render/shape-variants.js';
import type { SimulatorEndpoint } from '../simulator-endpoints.js';
import type { ReviseOption } from '../simulator-options.js';

/** What an endpoint answers before faults are applied. */
export interface Answer {
  readonly status: number;
  readonly body: string;
  /** Default `application/json; charset=utf-8`. */
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The history hours the answer sends, by series (`dataset:site`): recorded as answered
   * (`ServedHours`) once the answer goes out whole.
   */
  readonly served?: { readonly series: string; readonly hours: readonly number[] };
}

/** What an endpoint handler gets to answer one request. */
export interface RequestContext {
  readonly endpoint: SimulatorEndpoint;
  readonly params: URLSearchParams;
  readonly shapes: ShapeVariants;
  /** A change of the weather records' format, `null` for none (`WeatherDrift`). */
  readonly drift?: WeatherDrift | null;
  readonly nowMs: number;
  readonly maxRangeHours: number;
  /** A record fault to apply to the hourly records of a history answer, if one was drawn. */
  readonly recordFault?: RecordFault | undefined;
  /** History revised after its first answer, `null` for none (`ReviseOption`). */
  readonly revise?: ReviseOption | null;
  /** The history hours answered before: the ones `revise` may revise. */
  readonly served?: ServedHours;
}
