import type { Kysely } from 'kysely';
import { Document, isMap, isSeq } from 'yaml';
import { earliestHistory } from '../ledger/earliest-history.js';
import { listLocations } from '../locations/list-locations.js';
import type { LocationWithAliases } from '../locations/location.js';
import { DATASETS, type Dataset } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { DeclaredFileInput } from './declared-file-schema.js';
import { DECLARED_SCHEMA_MODELINE } from './declared-schema-modeline.js';

type LocationInput = DeclaredFileInput['locations'][number];
type DatasetInput = NonNullable<DeclaredFileInput['datasets'][Dataset]>;

/** `2016-01-01` at midnight, else the whole hour: `2016-01-01T06:00:00Z`. */
function sinceOf(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 19)}Z`;
}

/**
 * A location's entry: a place as a place (its name kept, so it is found again without a call;
 * its text the one it was declared by, else its name), any other as a point; with its group.
 */
function entryOf(l: LocationWithAliases, group: string | null): LocationInput {
  const country = l.countryCode !== null && { country: l.countryCode };
  const grouped = group !== null && { group };
  if (l.registeredBy === 'place') {
    return {
      place: l.aliases[0] ?? l.name,
      name: l.name,
      ...country,
      ...(l.ingestByPlace && { ingestByPlace: true }),
      ...grouped,
    };
  }
  return { name: l.name, lat: l.lat, lng: l.lng, ...country, ...grouped };
}

/**
 * Each dataset as the file last applied declared it (`storeDeclaration`): its `since` and its
 * groups' as written (those of groups with a location `inUse`), its drift policy. A warehouse
 * never applied (made with `locations add` and `backfill`) gets, per dataset, the first hour held
 * or planned (`earliestHistory`).
 */
async function datasetsOf(
  db: Kysely<Database>,
  inUse: ReadonlySet<string>,
): Promise<DeclaredFileInput['datasets']> {
  const declared = await db.selectFrom('declared_history').selectAll().execute();
  const drift = new Map(
    (await db.selectFrom('drift_policy').select(['dataset', 'policy']).execute()).map((r) => [
      r.dataset,
      r.policy,
    ]),
  );
  const withDrift = (d: Dataset, entry: DatasetInput): DatasetInput => {
    const policy = drift.get(d);
    return policy === undefined ? entry : { ...entry, drift: policy };
  };
  if (declared.length > 0) {
    const byDataset = new Map(declared.map((r) => [r.dataset, r]));
    return Object.fromEntries(
      DATASETS.flatMap((d) => {
        const row = byDataset.get(d);
        if (row === undefined) return [];
        // A group whose locations were all removed since is left out: the file would be refused.
        const groups = Object.entries(row.groups)
          .filter(([g]) => inUse.has(g))
          .map(([g, since]) => [g, { since }] as const);
        const entry = {
          since: row.since,
          ...(groups.length > 0 && { groups: Object.fromEntries(groups) }),
        };
        return [[d, withDrift(d, entry)]];
      }),
    );
  }
  const earliest = await earliestHistory(db);
  return Object.fromEntries(
    DATASETS.flatMap((d) => {
      const since = earliest.get(d);
      return since === undefined ? [] : [[d, withDrift(d, { since: sinceOf(since) })]];
    }),
  );
}

/**
 * `envdata export-config`: the declared file of the warehouse as it is, so that planning it on
 * the same warehouse shows no changes, and an installation made with `locations add` and
 * `backfill` can move to `envdata plan` and `apply`. Every active location is written as it was
 * registered: a point by its coordinates, a place by its place text and name (not geocoded
 * again), each with the group last declared. Each dataset's `since` and its groups' are the ones
 * last applied, as written (`-90d` stays a span back from now). The first line is the editors'
 * schema line (`DECLARED_SCHEMA_MODELINE`), as README shows it.
 */
export async function exportDeclaredState(db: Kysely<Database>, now = new Date()): Promise<string> {
  const locations = (await listLocations(db)).filter((l) => l.retiredAt === null);
  const groups = new Map(
    (
      await db
        .selectFrom('location')
        .select(['location_id', 'declared_group'])
        .where('declared_group', 'is not', null)
        .execute()
    ).map((r) => [r.location_id, r.declared_group]),
  );
  const entries = locations.map((l) => entryOf(l, groups.get(l.locationId) ?? null));
  const inUse = new Set(entries.flatMap((e) => (e.group === undefined ? [] : [e.group])));
  const file: DeclaredFileInput = {
    version: 1,
    locations: entries,
    datasets: await datasetsOf(db, inUse),
  };
  const doc = new Document(file);
  // One line per location: a long list stays readable and diffs by location.
  const list = doc.get('locations');
  if (isSeq(list)) for (const item of list.items) if (isMap(item)) item.flow = true;
  doc.commentBefore =
    ` Written by \`envdata export-config\` at ${now.toISOString()}: the warehouse as it was.\n` +
    ' Review it, keep it in git, change it and run `envdata plan` (docs/envdata.md).';
  return `${DECLARED_SCHEMA_MODELINE}\n${doc.toString({ flowCollectionPadding: true })}`;
}
