import type { Kysely } from 'kysely';
import { listUpstreamShapes } from '../ledger/list-upstream-shapes.js';
import { describeChanges } from '../upstream/shape-changes.js';
import type { Database } from '../warehouse/schema.js';

/** The console's Upstream page: the shapes of the service's answers, as `envdata upstream`. */
export interface UpstreamBoard {
  readonly shapes: readonly {
    readonly shape: string;
    readonly endpoint: string;
    readonly status: 'baseline' | 'accepted' | 'not accepted';
    readonly firstSeenAt: string;
    readonly lastSeenAt: string;
    readonly answers: number;
    readonly envelope: string;
    /** What changed from the shape before it, one line each; empty for the baseline. */
    readonly changes: readonly string[];
  }[];
}

/** Every shape, by endpoint, oldest first (`listUpstreamShapes`). */
export async function upstreamBoard(db: Kysely<Database>): Promise<UpstreamBoard> {
  const entries = await listUpstreamShapes(db);
  return {
    shapes: entries.map((e) => ({
      shape: e.digest,
      endpoint: `${e.dataset} ${e.source}`,
      status: e.baseline ? 'baseline' : e.acceptedAt !== null ? 'accepted' : 'not accepted',
      firstSeenAt: e.firstSeenAt.toISOString(),
      lastSeenAt: e.lastSeenAt.toISOString(),
      answers: e.answers,
      envelope: e.shape.envelope,
      changes: e.changes ? describeChanges(e.changes) : [],
    })),
  };
}
