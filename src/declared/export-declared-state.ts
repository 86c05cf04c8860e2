import type { Kysely } from 'kysely';
import { Document, isMap, isSeq } from 'yaml';
import { earliestHistory } from '../ledger/earliest-history.js';
import { listLocations } from '../locations/list-locations.js';
import { DATASETS } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { DeclaredFileInput } from './declared-file-schema.js';

/** `2016-01-01` at midnight, else the whole hour: `2016-01-01T06:00:00Z`. */
function sinceOf(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 19)}Z`;
}

/**
 * `envdata export-config`: the declared file of the warehouse as it is, so an installation made
 * with `locations add` and `backfill` can move to `envdata plan` and `apply`. Every active
 * location is written as a point (its coordinates are its identity; a place is not geocoded
 * again), and each dataset's `since` is the first hour held or planned (`earliestHistory`).
 * Applied to an empty database, it plans the same history.
 */
export async function exportDeclaredState(db: Kysely<Database>, now = new Date()): Promise<string> {
  const locations = (await listLocations(db)).filter((l) => l.retiredAt === null);
  const earliest = await earliestHistory(db);
  const file: DeclaredFileInput = {
    version: 1,
    locations: locations.map((l) => ({
      name: l.name,
      lat: l.lat,
      lng: l.lng,
      ...(l.countryCode !== null && { country: l.countryCode }),
    })),
    datasets: Object.fromEntries(
      DATASETS.flatMap((d) => {
        const since = earliest.get(d);
        return since === undefined ? [] : [[d, { since: sinceOf(since) }]];
      }),
    ),
  };
  const doc = new Document(file);
  // One line per location: a long list stays readable and diffs by location.
  const entries = doc.get('locations');
  if (isSeq(entries)) for (const item of entries.items) if (isMap(item)) item.flow = true;
  doc.commentBefore =
    ` Written by \`envdata export-config\` at ${now.toISOString()}: the warehouse as it was.\n` +
    ' Review it, keep it in git, change it and run `envdata plan` (docs/envdata.md).\n' +
    ' JSON Schema for editors: docs/envdata.schema.json';
  return doc.toString({ flowCollectionPadding: true });
}
