/**
 * The Environmental Data Service simulator: everything `envdata simulate`, the demo, tests and
 * benchmarks need. Start one with `startSimulator`; configure it from the environment with
 * `parseSimulatorConfig` (`src/config/simulator-config.ts`).
 */
export { startSimulator, type RunningSimulator } from './start-simulator.js';
export {
  DEFAULT_SIMULATOR_OPTIONS,
  DEMO_API_KEY,
  type DailyQuotaOption,
  type RateLimitOption,
  type RetryAfterMode,
  type SimulatorOptions,
  type SimulatorRuntimeOptions,
} from './simulator-options.js';
export {
  API_PRODUCTS,
  SIMULATOR_ENDPOINTS,
  endpointMatches,
  type ApiProduct,
  type SimulatorEndpoint,
} from './simulator-endpoints.js';
export {
  FAULT_KINDS,
  RECORD_FAULT_KINDS,
  type FaultKind,
  type RecordFaultKind,
  type FaultRule,
  type FaultScript,
  type FaultSettings,
} from './faults/fault-settings.js';
export type { FaultState } from './faults/fault-injector.js';
export { parseFaultSpec, type ParsedFaultSpec } from './faults/parse-fault-spec.js';
export { readFaultSettings } from './faults/read-fault-settings.js';
export { readRuntimeOptions } from './read-runtime-options.js';
export {
  CURRENT_SHAPES,
  LEGACY_SHAPES,
  SHAPE_VARIANT_NAMES,
  type ShapeVariants,
} from './render/shape-variants.js';
export { DATA_NOT_AVAILABLE_BODY, RANGE_TOO_LONG_MESSAGE } from './render/response-text.js';
export { POLLEN_RISK_THRESHOLDS, pollenRiskOf } from './data/pollen-risk.js';
export { POLLEN_SPECIES_BY_REGION } from './data/pollen-species-table.js';
export type { SimulatorStats } from './stats/simulator-stats.js';
export { maskKey } from './stats/mask-key.js';
