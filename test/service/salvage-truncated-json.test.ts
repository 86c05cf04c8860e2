import { describe, expect, it } from 'vitest';
import { salvageTruncatedJson } from '../../src/service/salvage-truncated-json.js';

describe('salvageTruncatedJson', () => {
  it('keeps the complete records before the cut and drops the cut one whole', () => {
    const text = '{"message":"success","lat":1,"data":[{"a":1,"n":{"x":[1]}},{"a":2,"n":{"x":';
    expect(salvageTruncatedJson(text)).toEqual({
      message: 'success',
      lat: 1,
      data: [{ a: 1, n: { x: [1] } }],
    });
  });

  it('does not cut after a nested object of a half-received record', () => {
    const text = '{"message":"success","data":[{"a":1},{"Count":{"t":1},"Risk":{"t":"Lo';
    expect(salvageTruncatedJson(text)).toEqual({ message: 'success', data: [{ a: 1 }] });
  });

  it('closes data.history nested in an object', () => {
    const text = '{"status":"success","data":{"lat":5,"history":[{"time":1},{"ti';
    expect(salvageTruncatedJson(text)).toEqual({
      status: 'success',
      data: { lat: 5, history: [{ time: 1 }] },
    });
  });

  it('ignores brackets and escaped quotes inside strings', () => {
    const text = '{"message":"success","data":[{"name":"a}]\\"{["},{"name":"b';
    expect(salvageTruncatedJson(text)).toEqual({ message: 'success', data: [{ name: 'a}]"{[' }] });
  });

  it('gives an empty array when the cut comes before the first record ends', () => {
    expect(salvageTruncatedJson('{"message":"success","data":[{"time":17')).toEqual({
      message: 'success',
      data: [],
    });
  });

  it('gives undefined when no array was opened', () => {
    expect(salvageTruncatedJson('{"message":"succ')).toBeUndefined();
    expect(salvageTruncatedJson('')).toBeUndefined();
  });
});
