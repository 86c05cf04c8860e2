import { describe, expect, it } from 'vitest';
import { formatWaiting } from '../../src/cli/format-waiting.js';

describe('formatWaiting', () => {
  it('says what holds a run and until when, to the minute at a midnight', () => {
    expect(
      formatWaiting({ reason: 'quota (day)', until: new Date('2026-11-27T00:00:00.000Z') }),
    ).toBe('waiting: quota (day) until 2026-11-27 00:00 UTC');
  });

  it('shows the seconds of a reset that falls within a minute (short test days)', () => {
    expect(
      formatWaiting({ reason: 'quota (month)', until: new Date('2026-11-26T21:07:36.000Z') }),
    ).toBe('waiting: quota (month) until 2026-11-26 21:07:36 UTC');
  });
});
