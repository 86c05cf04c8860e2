import { smoothNoise } from './deterministic-hash.js';

const SALT = { showers: 0x5b1, systems: 0x5b2 } as const;

/** Period of the showers' value noise, hours. */
const SHOWER_HOURS = 3;
/** Mean time from one weather system to the next, hours. */
const SYSTEM_HOURS = 60;
/** How far the systems' timing wanders, in cycles over three cycles. */
const PHASE_DRIFT = 1.5;
/** Weight of the showers in the blend; the systems have the rest. */
const SHOWER_SHARE = 0.5;

/** Quantiles of the raw signal at every 1/`STEPS`, estimated once from a fixed sample. */
const STEPS = 1024;
let quantiles: Float64Array | undefined;

/**
 * A smooth random signal in [0, 1) with a uniform distribution, whose highest values mark the
 * wet hours: an hour is wet with probability `p` when the signal exceeds `1 − p`, and how far it
 * exceeds it (uniform in [0, 1) given that it does) sets the intensity. Its two parts:
 *
 * - weather systems, a wave whose crests pass every 60 hours on average, their timing wandering
 *   (drifting phase): each system brings its chance of rain, so wet hours cluster into wet days
 *   and every stretch of a few weeks gets its share of them;
 * - showers, value noise on a 3-hour scale: the spells of rain within a system.
 *
 * The regular passing of systems keeps a year's count of wet hours within about 8 % of the
 * climate's share (pure noise on both scales let it swing by 20 %).
 *
 * The raw blend is far from uniform, so it is mapped through its own distribution function,
 * estimated once per process from 262,144 samples of fixed seeds: deterministic, and accurate to
 * a few thousandths.
 */
export function precipitationSignal(seed: number, epochHour: number): number {
  quantiles ??= estimateQuantiles();
  const raw = rawSignal(seed, epochHour);
  let low = 0;
  let high = STEPS;
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if ((quantiles[mid] ?? 0) <= raw) low = mid;
    else high = mid;
  }
  const from = quantiles[low] ?? 0;
  const to = quantiles[high] ?? from;
  const within = to > from ? (raw - from) / (to - from) : 0;
  return Math.min(0.999999, Math.max(0, (low + within) / STEPS));
}

function rawSignal(seed: number, epochHour: number): number {
  const drift = smoothNoise(seed, SALT.systems, epochHour, 3 * SYSTEM_HOURS);
  const phase = 2 * Math.PI * (epochHour / SYSTEM_HOURS + PHASE_DRIFT * drift + (seed % 97) / 97);
  return (
    SHOWER_SHARE * smoothNoise(seed, SALT.showers, epochHour, SHOWER_HOURS) +
    (1 - SHOWER_SHARE) * (0.5 + 0.5 * Math.sin(phase))
  );
}

function estimateQuantiles(): Float64Array {
  const seeds = 64;
  const hours = 4096;
  const sample = new Float64Array(seeds * hours);
  for (let s = 0; s < seeds; s++) {
    // Consecutive hours of a few seeds would sample a few weather systems only; a stride of 7
    // hours over 4,096 steps spans 3 years of each seed.
    for (let h = 0; h < hours; h++) sample[s * hours + h] = rawSignal(0x9e37 * (s + 1), h * 7);
  }
  sample.sort();
  const out = new Float64Array(STEPS + 1);
  for (let i = 0; i <= STEPS; i++) {
    out[i] =
      sample[Math.min(sample.length - 1, Math.round((i / STEPS) * (sample.length - 1)))] ?? 0;
  }
  // The ends are the sample's own extremes: the top 1/1024 holds the heaviest downpours, and
  // stretching it to a raw value of 1, which the blend never reaches, would thin them out.
  return out;
}
