import { sql, type Kysely } from 'kysely';
import { locationNameKey } from '../locations/location-name-key.js';
import { DATASETS } from '../types.js';
import type { Database } from '../warehouse/schema.js';
import type { DeclaredDataset } from './declared-file.js';
import type { WantedLocation } from './wanted-location.js';

/**
 * Records what a file being applied declares beyond its locations, so that `envdata
 * export-config` writes it back as it was (`readDeclaration`): each dataset's `since` and its
 * groups' as written (`envdata.declared_history`; a `-90d` stays a span back from now) and each
 * location's group (`location.declared_group`). Runs in apply's transaction, after its locations
 * are registered (a plan rolls it back), or in one of its own when apply has nothing else to do.
 * Only rows that differ are written.
 */
export async function storeDeclaration(
  db: Kysely<Database>,
  datasets: readonly DeclaredDataset[],
  wanted: readonly WantedLocation[],
  now = new Date(),
): Promise<void> {
  const write = (trx: Kysely<Database>) => store(trx, datasets, wanted, now);
  await (db.isTransaction ? write(db) : db.transaction().execute(write));
}

async function store(
  db: Kysely<Database>,
  datasets: readonly DeclaredDataset[],
  wanted: readonly WantedLocation[],
  now: Date,
): Promise<void> {
  const declared = new Set(datasets.map((d) => d.dataset));
  const undeclared = DATASETS.filter((d) => !declared.has(d));
  if (undeclared.length > 0) {
    await db.deleteFrom('declared_history').where('dataset', 'in', undeclared).execute();
  }
  if (datasets.length > 0) {
    await db
      .insertInto('declared_history')
      .values(
        datasets.map((d) => ({
          dataset: d.dataset,
          since: d.since,
          groups: JSON.stringify(Object.fromEntries(d.groups)),
          declared_at: now,
        })),
      )
      .onConflict((oc) =>
        oc.column('dataset').doUpdateSet((eb) => ({
          since: eb.ref('excluded.since'),
          groups: eb.ref('excluded.groups'),
          declared_at: eb.ref('excluded.declared_at'),
        })).where(sql<boolean>`(declared_history.since, declared_history.groups)
            is distinct from (excluded.since, excluded.groups)`),
      )
      .execute();
  }
  // By name as registered: a declared location is registered (or restored) by now.
  const keys = wanted.map((w) => locationNameKey(w.input.name.normalize('NFC').trim()));
  const groups = wanted.map((w) => w.group ?? null);
  await sql`
    update envdata.location l set declared_group = d.grp
      from unnest(${keys}::text[], ${groups}::text[]) as d(name_key, grp)
      where l.name_key = d.name_key and l.declared_group is distinct from d.grp
  `.execute(db);
}
