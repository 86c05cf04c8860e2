import { describe, expect, it } from 'vitest';
import {
  decideShareUnit,
  resolveShareUnits,
  toldShareUnits,
} from '../../src/normalize/decide-share-unit.js';

describe('decideShareUnit', () => {
  it('reads an answer with any share above 1 as percentages, its 0s and 1s included', () => {
    expect(decideShareUnit([1, 0, 1, 81])).toBe('percent');
    expect(decideShareUnit([100])).toBe('percent');
    expect(decideShareUnit([0, 1.01])).toBe('percent');
  });

  it('reads an answer whose shares all lie in 0–1 with one strictly between as fractions', () => {
    expect(decideShareUnit([0, 1, 0.81])).toBe('fraction');
    expect(decideShareUnit([0.004])).toBe('fraction');
    expect(decideShareUnit([1, 1, 0.99, 0])).toBe('fraction');
  });

  it('finds an answer with shares above 1 and strictly between 0 and 1 contradictory', () => {
    expect(decideShareUnit([0.81, 40])).toBe('contradictory');
    expect(decideShareUnit([1, 0, 64, 0.5])).toBe('contradictory');
  });

  it('cannot tell when every value is 0 or 1 with a 1 among them', () => {
    expect(decideShareUnit([0, 1, 1, 0])).toBe('cannot-tell');
    expect(decideShareUnit([1])).toBe('cannot-tell');
  });

  it('has nothing to decide when every value is 0, or there is none', () => {
    expect(decideShareUnit([0, 0])).toBe('only-zeros');
    expect(decideShareUnit([])).toBe('only-zeros');
    expect(decideShareUnit([undefined, undefined])).toBe('only-zeros');
  });

  it('leaves values that are no share in either unit out of the decision', () => {
    // A negative, an over-100 or a non-finite value is refused with its record, not read.
    expect(decideShareUnit([0, 1, 250])).toBe('cannot-tell');
    expect(decideShareUnit([-0.5, 1])).toBe('cannot-tell');
    expect(decideShareUnit([Number.NaN, Number.POSITIVE_INFINITY, 0])).toBe('only-zeros');
    expect(decideShareUnit([250, 0.3])).toBe('fraction');
    expect(decideShareUnit([-3, 40])).toBe('percent');
  });

  it('decides from all values together, whatever their order', () => {
    const values = [1, 0, 1, 0, 1, 64, 0];
    expect(decideShareUnit(values)).toBe('percent');
    expect(decideShareUnit([...values].reverse())).toBe('percent');
  });
});

describe('resolveShareUnits', () => {
  const verdicts = {
    humidity: 'percent',
    cloudCover: 'cannot-tell',
    precipProbability: 'contradictory',
  } as const;

  it("takes each field's own verdict, the remembered unit only for a field that cannot tell", () => {
    expect(resolveShareUnits(verdicts)).toEqual({ humidity: 'percent' });
    expect(
      resolveShareUnits(verdicts, {
        humidity: 'fraction',
        cloudCover: 'fraction',
        precipProbability: 'fraction',
      }),
    ).toEqual({ humidity: 'percent', cloudCover: 'fraction' });
    expect(toldShareUnits(verdicts)).toEqual({ humidity: 'percent' });
  });

  it('gives a field of only zeros no unit, remembered or not', () => {
    expect(
      resolveShareUnits(
        { humidity: 'fraction', cloudCover: 'only-zeros', precipProbability: 'only-zeros' },
        { cloudCover: 'percent' },
      ),
    ).toEqual({ humidity: 'fraction' });
  });
});
