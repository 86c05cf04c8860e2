import { describe, expect, it } from 'vitest';
import { expandMacros, interpolateVariables } from './grafana-sql.js';

// The range and the first cases are those of Grafana's own macro tests (macros_test.go); the
// 30-day interval pins Go's %v of a float64 (exponent form from a million up).
const RANGE = {
  from: new Date('2018-04-12T18:00:00Z'),
  to: new Date('2018-04-12T18:05:00Z'),
};

describe("expanding Grafana's PostgreSQL macros as Grafana does", () => {
  it('filters on the range with RFC 3339 literals', () => {
    expect(expandMacros('WHERE $__timeFilter(time_column)', RANGE)).toBe(
      "WHERE time_column BETWEEN '2018-04-12T18:00:00Z' AND '2018-04-12T18:05:00Z'",
    );
    expect(expandMacros('select $__timeFrom(), $__timeTo()', RANGE)).toBe(
      "select '2018-04-12T18:00:00Z', '2018-04-12T18:05:00Z'",
    );
  });

  it('groups by epoch seconds, with the alias when asked or when a comma follows', () => {
    expect(expandMacros("GROUP BY $__timeGroup(time_column,'5m')", RANGE)).toBe(
      'GROUP BY floor(extract(epoch from time_column)/300)*300',
    );
    expect(expandMacros("select $__timeGroup(time_column,'5m'), x", RANGE)).toBe(
      'select floor(extract(epoch from time_column)/300)*300 AS "time", x',
    );
    expect(expandMacros('select $__timeGroupAlias(time_column, 30d)', RANGE)).toBe(
      'select floor(extract(epoch from time_column)/2.592e+06)*2.592e+06 AS "time"',
    );
  });

  it('fails on a macro Grafana does not know, and on a bad interval', () => {
    expect(() => expandMacros('select $__timeBucket(t)', RANGE)).toThrow('unknown macro');
    expect(() => expandMacros("select $__timeGroup(t, 'soon')", RANGE)).toThrow(
      'error parsing interval',
    );
  });

  it('puts in variables raw, quotes doubled, and refuses one it has no value for', () => {
    expect(
      interpolateVariables("where id = $location and n = '${name}' and $__timeFilter(t)", {
        location: '12',
        name: "O'Hare",
      }),
    ).toBe("where id = 12 and n = 'O''Hare' and $__timeFilter(t)");
    expect(() => interpolateVariables('where id = $place', {})).toThrow('$place');
  });
});
