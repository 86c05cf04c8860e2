import { z } from 'zod';
import { EnvdataError } from '../errors/envdata-error.js';
import { isTimeZone } from './access/is-time-zone.js';
import type { ShapeVariants } from './render/shape-variants.js';
import { API_PRODUCTS } from './simulator-endpoints.js';
import type { SimulatorRuntimeOptions } from './simulator-options.js';

const retryAfter = z.enum(['always', 'sometimes', 'never']);
const retryAfterFormat = z.union([
  z.enum(['seconds', 'milliseconds']),
  z
    .object({
      header: z
        .string()
        .min(1)
        .max(64)
        .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII (an HTTP header value)'),
    })
    .strict(),
]);

const shapeVariants = z
  .object({
    capitalSuccess: z.boolean(),
    isoTimestamp: z.boolean(),
    swappedEnvelopes: z.boolean(),
    bareArrays: z.boolean(),
    stringCoordinates: z.boolean(),
    noSpecies: z.boolean(),
    noTimezone: z.boolean(),
    noLatestStamp: z.boolean(),
    percentages: z.boolean(),
    unitsPerField: z.boolean(),
    precipPercent: z.boolean(),
    offHourStamps: z.boolean(),
    recordedKeyOrder: z.boolean(),
    escapedSlashes: z.boolean(),
    speciesRiskKey: z.enum(['SpeciesRisk', 'Risks']),
  } satisfies Record<keyof ShapeVariants, z.ZodType>)
  .partial()
  .strict();

const schema = z
  .object({
    keys: z.record(z.string().min(1), z.array(z.enum(API_PRODUCTS))),
    maxRangeHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 366),
    rateLimit: z
      .object({
        max: z.number().int().min(1),
        durationMs: z.number().int().min(1),
        retryAfter: retryAfter.optional(),
        retryAfterFormat: retryAfterFormat.optional(),
      })
      .strict()
      .nullable(),
    quota: z
      .object({
        perDay: z.number().int().min(0).optional(),
        perMonth: z.number().int().min(0).optional(),
        timeZone: z
          .string()
          .refine(isTimeZone, 'must be an IANA time zone such as UTC or Europe/Berlin')
          .optional(),
        status: z.union([z.literal(429), z.literal(422)]).optional(),
        retryAfter: retryAfter.optional(),
        retryAfterFormat: retryAfterFormat.optional(),
      })
      .strict()
      .refine((q) => q.perDay !== undefined || q.perMonth !== undefined, {
        message: 'must set perDay, perMonth or both (null for no quota)',
      })
      .nullable(),
    daySeconds: z
      .number()
      .int('must be whole seconds')
      .min(1, 'must be at least 1 second')
      .max(86_400, 'must be at most 86400 seconds (a real day)'),
    dailyQuota: z
      .object({
        max: z.number().int().min(0),
        status: z.union([z.literal(429), z.literal(422)]).optional(),
        retryAfter: retryAfter.optional(),
        retryAfterFormat: retryAfterFormat.optional(),
      })
      .strict()
      .nullable(),
    legacyShapes: z.union([z.boolean(), shapeVariants]),
    drift: z
      .object({
        addField: z
          .string()
          .regex(
            /^[A-Za-z][A-Za-z0-9_]{0,39}$/,
            'must be a plain key: a letter, then letters, digits or _',
          )
          .optional(),
        dropHumidity: z.boolean().optional(),
        humidityAsText: z.boolean().optional(),
      })
      .strict()
      .nullable(),
    now: z
      .union([
        z.number().finite(),
        z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO-8601 instant'),
      ])
      .nullable(),
    revise: z
      .object({
        share: z
          .number({ error: 'must be a number from 0 to 1 (the share of hours revised)' })
          .min(0, 'must be from 0 to 1 (the share of hours revised)')
          .max(1, 'must be from 0 to 1 (the share of hours revised)'),
        seed: z.string().min(1).max(64).optional(),
      })
      .strict()
      .nullable(),
  })
  .partial()
  .strict();

/**
 * Validates a change of runtime options (from `setOptions` or `POST /__admin/options`). Throws
 * `EnvdataError('VALIDATION_FAILED')` listing every problem.
 *
 * @example readRuntimeOptions({ legacyShapes: { capitalSuccess: true }, maxRangeHours: 24 })
 */
export function readRuntimeOptions(input: unknown): Partial<SimulatorRuntimeOptions> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`);
    throw new EnvdataError(
      'VALIDATION_FAILED',
      `Invalid simulator options: ${problems.join('; ')}`,
      {
        details: { problems },
      },
    );
  }
  return parsed.data;
}
