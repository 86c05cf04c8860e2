import type { z } from 'zod';

/** What a field's short name stands for, where the name alone reads cryptic. */
const FIELD_NAMES: Readonly<Record<string, string>> = { lat: 'latitude', lng: 'longitude' };

/** zod's names of the types, as a person says them. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  boolean: 'true or false',
  object: 'a map',
  array: 'a list',
  null: 'nothing (null)',
  undefined: 'nothing',
};

/**
 * zod's error map for what people write (envdata.yaml, the environment): instead of "Too big:
 * expected number to be <=90", the field and the range allowed, `latitude must be between -90 and
 * 90, got 91`. Pass it as `safeParse(value, { error: plainZodMessage })`: messages a schema sets
 * itself still win. Numbers refused are shown (they are no secret); text never is. A code it does
 * not know keeps zod's own message.
 */
export function plainZodMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const key = issue.path?.at(-1);
  const field = typeof key === 'string' && key in FIELD_NAMES ? `${FIELD_NAMES[key]} ` : '';
  const got = typeof issue.input === 'number' ? `, got ${issue.input}` : '';
  switch (issue.code) {
    case 'too_big':
    case 'too_small': {
      if (issue.origin !== 'number') break;
      // The number schema the check belongs to: both its bounds, whichever one was crossed.
      const schema = (issue as { schema?: { minValue?: number | null; maxValue?: number | null } })
        .schema;
      const [min, max] = [schema?.minValue, schema?.maxValue];
      if (isShown(min) && isShown(max)) return `${field}must be between ${min} and ${max}${got}`;
      if (issue.code === 'too_big') {
        return `${field}must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}${got}`;
      }
      return `${field}must be ${issue.inclusive ? 'at least' : 'more than'} ${String(issue.minimum)}${got}`;
    }
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return `${field}must be ${expected}, not ${typeOf(issue.input)}${got}`;
    }
    case 'invalid_value':
      return `${field}must be ${issue.values.map((v) => String(v)).join(', ')}`.replace(
        /, ([^,]*)$/,
        ' or $1',
      );
  }
  return undefined;
}

/** A bound a person set: zod's whole-number checks add ±2^53 bounds of their own. */
function isShown(bound: number | null | undefined): bound is number {
  return typeof bound === 'number' && Math.abs(bound) < Number.MAX_SAFE_INTEGER;
}

/** The kind of value found, as a person says it. */
function typeOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : 'a fraction';
  return TYPE_NAMES[typeof value] ?? typeof value;
}
