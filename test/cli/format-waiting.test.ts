import { describe, expect, it } from 'vitest';
import { formatWaiting } from '../../src/cli/format-waiting.js';

describe('formatWaiting', () => {
  it('says what holds a run and until when, to the minute at a midnight', () => {
    expect(
      formatWaiting({
        reason: 'quota (day)',
        until: new Date('2026-11-27T00:00:00.000Z'),
        hint: null,
      }),
    ).toBe('waiting: quota (day) until 2026-11-27 00:00 UTC');
  });

  it('shows the seconds of a reset that falls within a minute (short test days)', () => {
    expect(
      formatWaiting({
        reason: 'quota (month)',
        until: new Date('2026-11-26T21:07:36.000Z'),
        hint: null,
      }),
    ).toBe('waiting: quota (month) until 2026-11-26 21:07:36 UTC');
  });

  it('says what an operator does when nothing ends the hold by itself', () => {
    expect(formatWaiting({ reason: 'paused', until: null, hint: 'envdata resume 12' })).toBe(
      'waiting: paused — envdata resume 12',
    );
    expect(
      formatWaiting({
        reason: 'no worker connected',
        until: null,
        hint: 'start `envdata worker`',
      }),
    ).toBe('waiting: no worker connected — start `envdata worker`');
  });

  it('takes any reason, as a new kind of hold names it', () => {
    expect(
      formatWaiting({
        reason: 'budget (month)',
        until: new Date('2026-12-01T00:00:00.000Z'),
        hint: null,
      }),
    ).toBe('waiting: budget (month) until 2026-12-01 00:00 UTC');
  });
});
