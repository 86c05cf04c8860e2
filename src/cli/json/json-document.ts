import { z } from 'zod';

/**
 * The version of every `--json` document's shape (docs/json-output.md). Within a version changes
 * are additive only — a new key, a new value of an enum where the doc says one may come; a key
 * renamed, removed or retyped is a new version.
 */
export const JSON_OUTPUT_VERSION = 1;

/** An instant in ISO 8601, UTC, as `Date#toISOString` writes it: `2024-06-30T12:00:00.000Z`. */
export const isoTimestamp = z.iso.datetime();

/** A whole number ≥ 0: a count. */
export const count = z.number().int().nonnegative();

/** `date` as an ISO 8601 UTC timestamp, `null` kept. */
export function isoOrNull(date: Date | null): string | null {
  return date === null ? null : date.toISOString();
}

/**
 * The schema of one `--json` document: `kind` (which document it is), `version`
 * (`JSON_OUTPUT_VERSION`) and `generatedAt`, then the command's own fields.
 */
export function jsonDocument<const Kind extends string, Shape extends z.ZodRawShape>(
  kind: Kind,
  shape: Shape,
) {
  return z
    .object({
      kind: z.literal(kind).describe(`always \`"${kind}"\`: which document this is`),
      version: z
        .literal(JSON_OUTPUT_VERSION)
        .describe(
          `the version of this shape, \`${JSON_OUTPUT_VERSION}\`; it changes only when a change is not additive`,
        ),
      generatedAt: isoTimestamp.describe('when envdata made this document'),
    })
    .extend(shape);
}
