/** PromQL words that are not metric names: keywords, aggregation modifiers and set operators. */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'atan2',
]);

/**
 * The metric names a PromQL expression selects, read structurally: strings, label matchers
 * (`{…}`), range and subquery brackets (`[…]`) and grouping label lists (`by (…)`) are removed,
 * then every identifier that is neither a function call nor a keyword is a metric name. The
 * expression's syntax itself is checked by promtool (`promtool check rules`), not here.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w:.])[a-zA-Z_:][\w:]*/g)) {
    const word = match[0];
    const after = stripped.slice(match.index + word.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(word)) continue;
    names.add(word);
  }
  return [...names];
}
