import { describe, expect, it } from 'vitest';
import {
  parseRecordInstant,
  rejectedRecordInstant,
} from '../../src/service/parse-record-instant.js';

const iso = (record: Record<string, unknown>) => parseRecordInstant(record).toISOString();

describe('parseRecordInstant', () => {
  it.each([
    [{ time: 1_657_000_000 }, '2022-07-05T05:46:40.000Z'],
    [{ time: '1657000000' }, '2022-07-05T05:46:40.000Z'],
    [{ time: 1_657_000_000.25 }, '2022-07-05T05:46:40.250Z'],
    [{ timestamp: '2024-11-10T21:00:00.000Z' }, '2024-11-10T21:00:00.000Z'],
    [{ timestamp: '2024-11-10T23:00:00+02:00' }, '2024-11-10T21:00:00.000Z'],
    [{ timestamp: '2024-11-11T02:30:00+0530' }, '2024-11-10T21:00:00.000Z'],
    [{ timestamp: '2024-11-10T16:00:00-05' }, '2024-11-10T21:00:00.000Z'],
    [{ updatedAt: '2024-11-10 21:00:00' }, '2024-11-10T21:00:00.000Z'],
    [{ createdAt: '2024-11-10T21:00:00.123456Z' }, '2024-11-10T21:00:00.123Z'],
  ])('reads %j', (record, expected) => {
    expect(iso(record)).toBe(expected);
  });

  it('prefers time, then timestamp, then updatedAt, then createdAt', () => {
    const all = {
      time: 1_700_000_000,
      timestamp: '2020-01-01T00:00:00Z',
      updatedAt: '2021-01-01T00:00:00Z',
      createdAt: '2022-01-01T00:00:00Z',
    };
    expect(iso(all)).toBe('2023-11-14T22:13:20.000Z');
    expect(iso({ ...all, time: null })).toBe('2020-01-01T00:00:00.000Z');
    expect(iso({ ...all, time: undefined, timestamp: undefined })).toBe('2021-01-01T00:00:00.000Z');
    expect(iso({ createdAt: all.createdAt })).toBe('2022-01-01T00:00:00.000Z');
  });

  it.each([
    [{}, /no timestamp/],
    [{ time: 'soon' }, /time is not a readable instant/],
    [{ time: true }, /time is not a readable instant/],
    [{ time: 1_657_000_000_000 }, /time is epoch milliseconds, not seconds/],
    [{ time: 1e15 }, /outside the years/],
    [{ timestamp: '2024-02-30T00:00:00Z' }, /timestamp is not a readable instant/],
    [{ timestamp: '2024-11-10T25:00:00Z' }, /timestamp is not a readable instant/],
    [{ updatedAt: 'Sun, 10 Nov 2024 21:00:00 GMT' }, /updatedAt is not a readable instant/],
  ])('rejects %j', (record, reason) => {
    expect(() => parseRecordInstant(record)).toThrow(reason);
  });

  it.each([
    [{ time: 1_657_000_000, Count: 'x' }, '2022-07-05T05:46:40.000Z'],
    [{ time: 1_657_000_000_000 }, '2022-07-05T05:46:40.000Z'],
    [{ time: '1657000000000' }, '2022-07-05T05:46:40.000Z'],
    [{ timestamp: '2024-11-10T21:00:00Z', Risk: 7 }, '2024-11-10T21:00:00.000Z'],
    [{}, undefined],
    [{ time: 1e15 }, undefined],
    [{ time: 'soon', updatedAt: '2024-11-10T21:00:00Z' }, undefined],
    ['not a record', undefined],
  ])('places the rejected record %j at %s', (record, at) => {
    expect(rejectedRecordInstant(record)?.toISOString()).toBe(at);
  });

  it('does not fall through to a later key when the preferred one is unreadable', () => {
    expect(() => parseRecordInstant({ time: 'x', updatedAt: '2024-11-10T21:00:00Z' })).toThrow(
      /time/,
    );
  });
});
