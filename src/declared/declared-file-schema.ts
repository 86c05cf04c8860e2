import { z } from 'zod';
import { DATASETS, DRIFT_POLICIES } from '../types.js';

/**
 * The schema of `envdata.yaml`, the declared state of a warehouse: which locations it keeps and,
 * per dataset, the first hour of history wanted. Process settings stay in the environment; the
 * file holds no secret. docs/envdata.schema.json is generated from it (`npm run docs:json`).
 */

/** A `since`: a UTC date or whole hour, or a span back from now. Checked by `sinceDate`. */
export const sinceText = z
  .string()
  .describe(
    'The first hour wanted, UTC: `2016-01-01`, `2016-01-01T06:00:00Z`, or back from now: `-30d`, `-12h`, `-2y`.',
  );

const groupName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'must be letters, digits, "-" or "_" (such as alps)')
  .describe('A group of locations, for a `since` of its own under `datasets.DATASET.groups`.');

const countryCode = z.string().describe('ISO 3166-1 alpha-2 country code, any case: `DE`.');

const text = z.string();

/** A point: its name is its identity, its coordinates never change under its data. */
export const pointEntry = z
  .strictObject({
    name: text.describe('A unique name: the location is known by it.'),
    lat: z.number().min(-90).max(90).describe('Latitude in decimal degrees.'),
    lng: z.number().min(-180).max(180).describe('Longitude in decimal degrees.'),
    country: countryCode.optional(),
    group: groupName.optional(),
  })
  .describe('A location by coordinates.');

/** A place the service geocodes once (as `locations add --place`). */
export const placeEntry = z
  .strictObject({
    place: text.describe('A place name or address the service geocodes: `Valencia`.'),
    country: countryCode.optional().describe('Only matches in this country count.'),
    name: text.optional().describe('The name to keep (default: the name the service gives).'),
    ingestByPlace: z
      .boolean()
      .optional()
      .describe('Ingest pollen through the by-place endpoints (default false).'),
    group: groupName.optional(),
  })
  .describe('A location by place, geocoded through the service when first declared.');

/** A CSV or JSON file of locations, as `envdata locations import` reads it. */
export const fileEntry = z
  .strictObject({
    file: text.describe(
      "A .csv or .json location file in this file's folder, relative to it (no absolute path, no `..` or link out of it, no ${VAR}), at most 32 MiB.",
    ),
    group: groupName.optional(),
  })
  .describe('The locations of a file, in the format `envdata locations import` reads.');

export const locationEntry = z.union([pointEntry, placeEntry, fileEntry]);

export const datasetEntry = z
  .strictObject({
    since: sinceText,
    groups: z
      .record(groupName, z.strictObject({ since: sinceText }))
      .optional()
      .describe('A `since` of its own for the locations of a group.'),
    drift: z
      .enum(DRIFT_POLICIES)
      .optional()
      .describe(
        'What the answers of a new, not yet accepted shape do (docs/drift.md): evolve (land the known fields, notify), quarantine (hold their hours until `envdata upstream accept`) or freeze (hold them and make the calls wait). Stored by `envdata apply` for every worker; wins over ENVDATA_DRIFT_POLICY.',
      ),
  })
  .describe('The history kept of one dataset.');

export const declaredFileSchema = z
  .strictObject({
    version: z.literal(1).describe('The version of this format: 1.'),
    locations: z.array(locationEntry).default([]).describe('Every location kept, active.'),
    datasets: z
      .strictObject(Object.fromEntries(DATASETS.map((d) => [d, datasetEntry.optional()])))
      .default({})
      .describe('Per dataset, the first hour wanted; a dataset left out is not planned.'),
  })
  .describe(
    'envdata.yaml: the locations envdata keeps and the history wanted per dataset (`envdata plan`, `envdata apply`).',
  );

export type PointEntry = z.infer<typeof pointEntry>;
export type PlaceEntry = z.infer<typeof placeEntry>;
export type FileEntry = z.infer<typeof fileEntry>;
export type DeclaredFileInput = z.infer<typeof declaredFileSchema>;
