import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import {
  decideLanding,
  type ChunkLanding,
  type LandingDecision,
} from '../ledger/landing-decision.js';
import type { ArchivedPayload } from '../ledger/record-landings.js';
import type { FactRow } from '../warehouse/fact-rows.js';
import type { FactTable, WriteContext } from '../warehouse/fact-table.js';
import type { FactTableSpec } from '../warehouse/fact-table-spec.js';
import type { StagedRows } from '../warehouse/located-rows.js';
import { stageRows } from '../warehouse/wire/index.js';

/** A body as the archive keeps it, made before the landing transaction. */
export interface ArchiveBody {
  /** SHA-256 of the body as received. */
  readonly digest: Buffer;
  readonly gzipped: Buffer;
  readonly bodyBytes: number;
}

/**
 * A landing ready for its transaction: what the ledger decided of it, its rows encoded as their
 * tables send them, and its body, when the archive keeps bodies, digested and compressed
 * (`undefined` otherwise).
 */
export interface StagedLanding extends ChunkLanding {
  readonly decision: LandingDecision;
  /**
   * By table of `facts.tables`, in its order: the rows staged; `undefined` for a table whose
   * columns need a lookup first (`FactTable.prepare`): its rows are encoded when written.
   */
  readonly encoded: readonly (StagedRows | undefined)[];
  readonly archiveBody: ArchiveBody | undefined;
}

/**
 * Does, as a landing arrives, what needs no transaction (the ledger's decision, encoded rows,
 * the archive body), so none of it lengthens a landing transaction.
 */
export async function stageLanding(
  landing: ChunkLanding,
  options: { readonly archiveRaw: boolean; readonly context: WriteContext },
): Promise<StagedLanding> {
  const encoded = landing.facts.tables.map(({ table, rows }) =>
    table.prepare ? undefined : stageRows(specOf(table, options.context), landing.locationId, rows),
  );
  const staged = { ...landing, decision: decideLanding(landing), encoded };
  const { rawBody } = landing;
  if (!options.archiveRaw || rawBody === undefined || landing.rebuild) {
    return { ...staged, archiveBody: undefined };
  }
  const digest = createHash('sha256').update(rawBody).digest();
  const gzipped = await gzipAsync(rawBody);
  return { ...staged, archiveBody: { digest, gzipped, bodyBytes: Buffer.byteLength(rawBody) } };
}

const gzipAsync = promisify(gzip);

/** A body to archive: the landing it came with and that landing's index. */
interface Body {
  readonly landing: StagedLanding;
  readonly index: number;
}

/** The bodies to archive by chunk: one per chunk, the last if a chunk came twice in a batch. */
export function bodiesToArchive(landings: readonly StagedLanding[]): Map<number, Body> {
  const bodies = new Map<number, Body>();
  landings.forEach((landing, index) => {
    if (landing.archiveBody !== undefined) bodies.set(landing.chunkId, { landing, index });
  });
  return bodies;
}

/**
 * The archive entries by landing index; a body the archive holds already (same SHA-256, in
 * `stored` by chunk) goes without its bytes.
 */
export function archivesOf(
  bodies: ReadonlyMap<number, Body>,
  stored: ReadonlyMap<number, Buffer>,
): ReadonlyMap<number, ArchivedPayload> {
  const entries = new Map<number, ArchivedPayload>();
  for (const [chunkId, { landing, index }] of bodies) {
    const { digest, gzipped, bodyBytes } = landing.archiveBody!;
    const same = stored.get(chunkId)?.equals(digest) ?? false;
    entries.set(index, {
      fetchedAt: landing.startedAt,
      httpStatus: landing.httpStatus,
      digest,
      body: same ? undefined : gzipped,
      bodyBytes,
    });
  }
  return entries;
}

/** `table`'s columns, for the rows it holds. */
export function specOf(table: FactTable<FactRow>, context: WriteContext): FactTableSpec<FactRow> {
  return table.spec(context) as FactTableSpec<FactRow>;
}
