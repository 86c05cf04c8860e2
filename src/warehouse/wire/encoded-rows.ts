import { ByteWriter, sendValue } from './binary-values.js';
import { factDigest } from './fact-digest.js';
import type { FactRow } from '../fact-rows.js';
import type { FactColumn, FactTableSpec } from '../fact-table-spec.js';
import type { StagedRows } from '../located-rows.js';

/**
 * One location's rows as tuples of a binary `COPY … FROM STDIN` (`location_id`, `observed_at`,
 * then the key and value columns, each as its length and binary form, the same bytes an array
 * holds per element, then `answer_id`), or `undefined` when a value's binary form could not
 * stand for what Postgres would store reading its text (see `sendValue`): such rows go as text.
 */
export function encodeCopyTuples<Row extends FactRow>(
  table: FactTableSpec<Row>,
  locationId: number,
  rows: readonly Row[],
  answerId: number | null,
): Buffer | undefined {
  const columns = [...table.key, ...table.columns] as readonly FactColumn<never>[];
  const out = new ByteWriter(rows.length * (34 + 12 * columns.length));
  for (const row of rows) {
    out.int16(3 + columns.length);
    out.int32(4);
    out.int32(locationId);
    out.instant(row.observedAt);
    for (const column of columns) {
      if (!sendValue(out, column, column.value(row as never))) return undefined;
    }
    if (answerId === null) {
      out.int32(-1);
    } else {
      out.int32(8);
      out.int64(answerId);
    }
  }
  return out.bytesView();
}

/** `PGCOPY\n\377\r\n\0`, then flags and the header extension's length (both 0). */
const COPY_HEADER = Buffer.from([
  0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
]);
/** The field count -1 that ends the data. */
const COPY_TRAILER = Buffer.from([0xff, 0xff]);

/** The data of a binary `COPY … FROM STDIN` holding every tuple of `parts`, in order, in pieces. */
export function copyData(parts: readonly Buffer[]): readonly Buffer[] {
  return [COPY_HEADER, ...parts, COPY_TRAILER];
}

/** `rows` of one location, set by answer `answerId`, staged for `table` (see `StagedRows`). */
export function stageRows<Row extends FactRow>(
  table: FactTableSpec<Row>,
  locationId: number,
  rows: readonly Row[],
  answerId: number | null,
): StagedRows {
  return {
    copyTuples: encodeCopyTuples(table, locationId, rows, answerId),
    digest: factDigest(table, rows),
  };
}
