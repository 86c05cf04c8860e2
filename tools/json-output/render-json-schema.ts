import { z } from 'zod';

/** A JSON Schema object, as `z.toJSONSchema` makes it. */
export type JsonSchema = z.core.JSONSchema.BaseSchema;

/**
 * The JSON Schema (draft 2020-12) of a `--json` document, from its zod schema. Made for input
 * (`io: 'input'`), so objects do not forbid other keys: a consumer validating with it keeps
 * working when a later release of the same version adds one. Timestamps keep `format: date-time`
 * without zod's long pattern; counts lose the `maximum` of 2^53 − 1 that says nothing.
 */
export function toJsonSchema(schema: z.ZodType, title: string, description: string): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    override: ({ jsonSchema }) => {
      if (jsonSchema.format === 'date-time') delete jsonSchema.pattern;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
  const { $schema, ...rest } = json;
  return { $schema, title, description, ...rest };
}
