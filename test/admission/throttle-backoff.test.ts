import { describe, expect, it } from 'vitest';
import { OUTCOME_POLICY } from '../../src/ingest/outcome-policy.js';
import { ThrottleBackoff } from '../../src/admission/throttle-backoff.js';
import { jitteredBackoffMs } from '../../src/lifecycle/jittered-backoff.js';

const RATE = OUTCOME_POLICY.RATE_LIMITED;
const QUOTA = OUTCOME_POLICY.QUOTA_EXCEEDED;
const T0 = 1_000_000;

describe('ThrottleBackoff', () => {
  it('never pauses longer than its cap (ENVDATA_MAX_PAUSE), whatever Retry-After or the backoff ask', () => {
    const throttle = new ThrottleBackoff(() => 0.5, 5_000);
    expect(throttle.pauseMs(RATE, 86_400_000, T0)).toBe(5_000);
    expect(throttle.pauseMs(RATE, 3_000, T0)).toBe(3_000);
    const pauses: number[] = [];
    let now = T0;
    for (let i = 0; i < 5; i += 1) {
      const ms = throttle.pauseMs(QUOTA, undefined, now);
      pauses.push(ms);
      now += ms;
    }
    expect(pauses).toEqual([5_000, 5_000, 5_000, 5_000, 5_000]);
  });

  it('pauses for what Retry-After asked, and leaves the backoff where it was', () => {
    const throttle = new ThrottleBackoff(() => 0.5);
    expect(throttle.pauseMs(RATE, 7_000, T0)).toBe(7_000);
    expect(throttle.pauseMs(RATE, undefined, T0)).toBe(1_000);
  });

  it('never loops on Retry-After: 0: it backs off instead', () => {
    const throttle = new ThrottleBackoff(() => 0.5);
    expect(throttle.pauseMs(RATE, 0, T0)).toBe(1_000);
  });

  it('without Retry-After, doubles from the base with each burst up to the cap', () => {
    const throttle = new ThrottleBackoff(() => 0.5);
    const pauses: number[] = [];
    let now = T0;
    for (let i = 0; i < 9; i += 1) {
      const ms = throttle.pauseMs(RATE, undefined, now);
      pauses.push(ms);
      now += ms;
    }
    expect(pauses).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('gives the throttled answers of calls already in flight the rest of the same pause', () => {
    const throttle = new ThrottleBackoff(() => 0.5);
    expect(throttle.pauseMs(RATE, undefined, T0)).toBe(1_000);
    expect(throttle.pauseMs(RATE, undefined, T0 + 300)).toBe(700);
    expect(throttle.pauseMs(QUOTA, undefined, T0 + 999)).toBe(1);
    expect(throttle.pauseMs(RATE, undefined, T0 + 1_000)).toBe(2_000);
  });

  it('starts again from the base once a call got through', () => {
    const throttle = new ThrottleBackoff(() => 0.5);
    throttle.pauseMs(RATE, undefined, T0);
    throttle.pauseMs(RATE, undefined, T0 + 1_000);
    throttle.reset();
    expect(throttle.pauseMs(RATE, undefined, T0 + 3_000)).toBe(1_000);
  });

  it('jitters each pause between half and one and a half of it, never to 0', () => {
    expect(new ThrottleBackoff(() => 0).pauseMs(QUOTA, undefined, T0)).toBe(30_000);
    expect(new ThrottleBackoff(() => 0.999_999).pauseMs(QUOTA, undefined, T0)).toBe(90_000);
  });
});

describe('jitteredBackoffMs', () => {
  it('stops doubling after 12 times, so a long outage cannot overflow it', () => {
    expect(jitteredBackoffMs(10, 12, undefined, () => 0.5)).toBe(40_960);
    expect(jitteredBackoffMs(10, 1_000, undefined, () => 0.5)).toBe(40_960);
  });
});
