/**
 * What Grafana does to a PostgreSQL panel's SQL before the server sees it, for tests that run a
 * dashboard's queries: first the dashboard's variables (`$location`, `${location}`, `$__interval`)
 * are put in by the front end, then the data source's macro engine expands `$__timeFilter(col)`
 * and the other macros. The expansions follow Grafana's PostgreSQL macro engine
 * (`pkg/tsdb/grafana-postgresql-datasource/macros.go`, TimescaleDB off) word for word.
 */

export interface TimeRange {
  readonly from: Date;
  readonly to: Date;
}

/** Puts in dashboard variables, as Grafana does for a single-value variable: the raw value. */
export function interpolateVariables(
  sql: string,
  variables: Readonly<Record<string, string>>,
): string {
  return sql.replace(/\$\{(\w+)\}|\[\[(\w+)\]\]|\$(\w+)(?!\w|\()/g, (whole, a, b, c) => {
    const name = (a ?? b ?? c) as string;
    const value = variables[name];
    if (value === undefined) throw new Error(`no value for the dashboard variable ${whole}`);
    // Grafana doubles single quotes in a single value of a SQL data source.
    return value.replaceAll("'", "''");
  });
}

/** Expands Grafana's PostgreSQL macros over `range`; an unknown macro fails, as in Grafana. */
export function expandMacros(sql: string, range: TimeRange): string {
  return sql.replace(
    /\$([_a-zA-Z0-9]+)\(([^)]*)\)/g,
    (whole, name: string, rawArgs: string, at: number) => {
      const args = rawArgs.split(',').map((arg) => arg.trim());
      // Grafana: `$__timeGroup(…)` directly followed by a comma is the old form of the alias.
      const macro =
        name === '__timeGroup' && sql[at + whole.length] === ',' ? '__timeGroupAlias' : name;
      return evaluate(macro, args, range);
    },
  );
}

function evaluate(name: string, args: string[], range: TimeRange): string {
  const column = () => {
    if (!args[0]) throw new Error(`missing time column argument for macro ${name}`);
    return args[0];
  };
  const from = goRfc3339Nano(range.from);
  const to = goRfc3339Nano(range.to);
  switch (name) {
    case '__time':
      return `${column()} AS "time"`;
    case '__timeEpoch':
      return `extract(epoch from ${column()}) as "time"`;
    case '__timeFilter':
      return `${column()} BETWEEN '${from}' AND '${to}'`;
    case '__timeFrom':
      return `'${from}'`;
    case '__timeTo':
      return `'${to}'`;
    case '__timeGroup': {
      const seconds = goFloat(intervalSeconds(name, args));
      return `floor(extract(epoch from ${column()})/${seconds})*${seconds}`;
    }
    case '__timeGroupAlias':
      return `${evaluate('__timeGroup', args, range)} AS "time"`;
    case '__unixEpochFilter':
      return `${column()} >= ${epoch(range.from)} AND ${column()} <= ${epoch(range.to)}`;
    case '__unixEpochGroup': {
      const seconds = goFloat(intervalSeconds(name, args));
      return `floor((${column()})/${seconds})*${seconds}`;
    }
    case '__unixEpochGroupAlias':
      return `${evaluate('__unixEpochGroup', args, range)} AS "time"`;
    default:
      throw new Error(`unknown macro "${name}"`);
  }
}

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  m: 60,
  h: 3600,
  d: 86_400,
  w: 604_800,
  y: 31_536_000,
};

/** The interval argument of a grouping macro (`'1h'`, `5m`, `1d`), in seconds. */
function intervalSeconds(name: string, args: readonly string[]): number {
  if (args.length < 2) {
    throw new Error(`macro ${name} needs time column and interval and optional fill value`);
  }
  const match = /^(\d+)(ms|s|m|h|d|w|y)$/.exec(args[1]!.replace(/^'|'$/g, ''));
  if (!match) throw new Error(`error parsing interval ${args[1]}`);
  return Number(match[1]) * UNIT_SECONDS[match[2]!]!;
}

/** Go's `time.RFC3339Nano` of an instant in UTC: trailing zeros of the fraction dropped. */
function goRfc3339Nano(instant: Date): string {
  return instant
    .toISOString()
    .replace(/\.(\d*?)0*Z$/, (_whole, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/** Go's `%v` of a float64: exponent form (`2.592e+06`) from a million up. */
function goFloat(value: number): string {
  if (Math.abs(value) < 1e6) return String(value);
  return value.toExponential().replace(/e\+(\d)$/, 'e+0$1');
}

function epoch(instant: Date): number {
  return Math.floor(instant.getTime() / 1000);
}
