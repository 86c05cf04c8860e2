import type { Insertable, Kysely } from 'kysely';
import type { FactRow } from './fact-rows.js';
import type { FactTable, SnapshotTable, WriteContext } from './fact-table.js';
import { defineFactTable, type FactColumn, type FactTableSpec } from './fact-table-spec.js';
import type { MonthPartitionedTable } from './month-partitions.js';
import type { Database } from './schema.js';
import type { PartitionedTable } from './year-partitions.js';
import type { ShareField } from '../types.js';

type Columns<Row> = readonly FactColumn<Row>[];

/** A fact table and the snapshot table beside it, whose columns are the same: declared once. */
export interface TablesDeclaration<Row, Fact, Snapshot, Key, Cols> {
  readonly fact: Fact;
  readonly snapshot: Snapshot;
  /**
   * Key columns after `location_id, observed_at` (a snapshot's after its stamp); never null.
   * A function of what the writer keeps for lookups when a key needs one (a species id).
   */
  readonly key: Key | ((context: WriteContext) => Key);
  /** The other columns, in the tables' order. */
  readonly columns: Cols;
  /** The column each share field is stored in as a fraction (`WarehouseTable.shareColumns`). */
  readonly shares?: Readonly<Partial<Record<ShareField, NoInfer<NameOf<Cols>>>>>;
  /** Before the transaction (short locks, nothing to roll back): ids the rows need. */
  prepare?(db: Kysely<Database>, rows: readonly Row[], context: WriteContext): Promise<void>;
}

/** The tables `declareTables` declares. */
export interface DeclaredTables<Row extends FactRow> {
  readonly fact: FactTable<Row>;
  readonly snapshot: SnapshotTable<Row>;
  /**
   * The declared columns after the key, in the tables' order: for readers that need their names
   * and types without a writer's context (the Parquet export, the certificates' canonical rows).
   */
  readonly columns: readonly FactColumn<Row>[];
}

type NameOf<C> = C extends Columns<never> ? C[number]['name'] : never;

/** The value each declared column writes, by name, as its `value` returns it. */
type ValuesOf<C extends Columns<never>> = { [K in C[number] as K['name']]: ReturnType<K['value']> };

/** Columns every table has beside its declared ones: a fact's key, a snapshot's stamp. */
type Fixed =
  'location_id' | 'observed_at' | 'product' | 'fetched_at' | 'valid_at' | 'stamped_at_fetch';

/** The columns of table `T` that `V` leaves out, names but `T` lacks, or gives another type. */
interface Problems<T extends keyof Database, V, I = Omit<Insertable<Database[T]>, Fixed>> {
  table: T;
  undeclared: Exclude<keyof Database[T], Fixed | keyof V>;
  unknown: Exclude<keyof V, keyof Database[T]>;
  ofAnotherType: { [K in keyof V & keyof I]-?: V[K] extends I[K] ? never : K }[keyof V & keyof I];
}

/** What is wrong with `V` for each of tables `Names`: `never` when it fits them all. */
type Mismatches<Names extends keyof Database, V> = Names extends unknown
  ? Problems<Names, V> extends { undeclared: never; unknown: never; ofAnotherType: never }
    ? never
    : { [K in keyof Problems<Names, V>]: Problems<Names, V>[K] }
  : never;

/** `Tables` when `V` fits each of `Names`; else what is wrong (`.fact` then fails to compile). */
type Checked<Names extends keyof Database, V, Tables> = [Mismatches<Names, V>] extends [never]
  ? Tables
  : Mismatches<Names, V>;

/**
 * Declares a fact table and its snapshot table from one list of columns: the fact spec
 * (`defineFactTable`) and the snapshot's insert derive from it, and `tsc` holds it to both tables
 * of `Database` (every column declared, none unknown, each value of its column's type).
 *
 * @example
 * const POLLEN = declareTables<PollenTypeRow>()({
 *   fact: 'pollen_hourly',
 *   snapshot: 'pollen_snapshot',
 *   key: [{ name: 'pollen_type', type: 'envdata.pollen_type', value: (r) => r.pollenType }],
 *   columns: [{ name: 'count', type: 'int', value: (r) => r.count }, …],
 * });
 */
export function declareTables<Row extends FactRow>() {
  return <
    Fact extends PartitionedTable,
    Snapshot extends MonthPartitionedTable,
    const Key extends Columns<Row>,
    const Cols extends Columns<Row>,
  >(
    declared: TablesDeclaration<Row, Fact, Snapshot, Key, Cols>,
  ): Checked<Fact | Snapshot, ValuesOf<[...Key, ...Cols]>, DeclaredTables<Row>> => {
    const { key, columns, prepare, shares } = declared;
    const shared = { ...(prepare && { prepare }), ...(shares && { shareColumns: shares }) };
    const specOf = (name: string): ((context: WriteContext) => FactTableSpec<Row>) => {
      const table = `envdata.${name}` as const;
      if (typeof key !== 'function') {
        const spec = defineFactTable<Row>({ table, key, columns });
        return () => spec;
      }
      // One spec per writer's lookups, declared once rather than once per landed batch.
      const specs = new WeakMap<WriteContext, FactTableSpec<Row>>();
      return (context) => {
        const spec = specs.get(context) ?? defineFactTable({ table, key: key(context), columns });
        specs.set(context, spec);
        return spec;
      };
    };
    const tables: DeclaredTables<Row> = {
      fact: { name: declared.fact, spec: specOf(declared.fact), ...shared },
      snapshot: { name: declared.snapshot, spec: specOf(declared.snapshot), ...shared },
      columns: Object.freeze([...columns]),
    };
    return tables as never;
  };
}
