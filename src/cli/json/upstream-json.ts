import { z } from 'zod';
import { DATASETS } from '../../types.js';
import type { UpstreamShapeEntry } from '../../ledger/list-upstream-shapes.js';
import { count, isoOrNull, isoTimestamp, jsonDocument } from './json-document.js';

const jsonTypes = z
  .array(z.enum(['array', 'boolean', 'null', 'number', 'object', 'string']))
  .describe('the JSON types the path’s values had');

/** `envdata upstream --json`. */
export const upstreamJson = jsonDocument('upstream', {
  shapes: z
    .array(
      z.object({
        shape: z
          .string()
          .describe('the shape’s digest (12 hex digits): what `envdata upstream accept` takes'),
        dataset: z.enum(DATASETS).describe('the dataset of the endpoint'),
        source: z
          .string()
          .describe(
            '`history`, or the snapshot product (`latest`, `forecast_48h`, `forecast_72h`, `forecast_120h`)',
          ),
        status: z
          .enum(['baseline', 'accepted', 'not accepted'])
          .describe(
            '`baseline`: the first shape of its endpoint; `accepted`: accepted since (by `envdata upstream accept`, or because it only learned a share unit); `not accepted`: drift nobody accepted yet',
          ),
        firstSeenAt: isoTimestamp.describe('when an answer first had it'),
        lastSeenAt: isoTimestamp.describe('when an answer last had it (counted every few seconds)'),
        answers: count.describe('answers that had it, as workers counted them'),
        acceptedAt: isoTimestamp.nullable().describe('when it was accepted; `null` while not'),
        sampleChunkId: count
          .nullable()
          .describe('history: the chunk whose archived answer first had it; `null` for snapshots'),
        envelope: z
          .string()
          .describe('the envelope’s form: `status, data.history[]`, `message, data[]`, …'),
        statusText: z.string().nullable().describe('the `message`/`status` text as sent'),
        units: z
          .record(z.string(), z.enum(['fraction', 'percent']))
          .describe('the unit each share field is read in (told, or last told)'),
        paths: z
          .record(z.string(), jsonTypes)
          .describe('every key path (arrays as `[]`, map keys as `*`) with its JSON types'),
        previous: z
          .string()
          .nullable()
          .describe('the shape of the same endpoint first seen before it; `null` for the first'),
        changes: z
          .object({
            added: z.array(z.string()).describe('key paths new in this shape'),
            gone: z.array(z.string()).describe('key paths that stopped coming'),
            typeChanged: z
              .array(
                z.object({
                  path: z.string().describe('the key path'),
                  from: jsonTypes,
                  to: jsonTypes,
                }),
              )
              .describe('key paths whose JSON types changed'),
            unitChanged: z
              .array(
                z.object({
                  field: z
                    .string()
                    .describe('the share field: `humidity`, `cloudCover`, `precipProbability`'),
                  from: z.enum(['fraction', 'percent']).describe('the unit it last told before'),
                  to: z.enum(['fraction', 'percent']).describe('the unit this shape tells'),
                }),
              )
              .describe('share fields whose told unit changed'),
            envelope: z
              .object({
                from: z.string().describe('the form before'),
                to: z.string().describe('the form now'),
              })
              .optional()
              .describe('the envelope’s form, when it changed'),
            status: z
              .object({
                from: z.string().nullable().describe('the text before'),
                to: z.string().nullable().describe('the text now'),
              })
              .optional()
              .describe('the status text, when it changed'),
          })
          .nullable()
          .describe('what changed from `previous`; `null` for the first'),
      }),
    )
    .describe('every shape, by dataset and source, oldest first'),
});

export type UpstreamJson = z.infer<typeof upstreamJson>;

/** `entries` as `envdata upstream --json` prints them. */
export function toUpstreamJson(entries: readonly UpstreamShapeEntry[], now: Date): UpstreamJson {
  return {
    kind: 'upstream',
    version: 1,
    generatedAt: now.toISOString(),
    shapes: entries.map((e) => ({
      shape: e.digest,
      dataset: e.dataset,
      source: e.source,
      status: e.baseline ? 'baseline' : e.acceptedAt !== null ? 'accepted' : 'not accepted',
      firstSeenAt: e.firstSeenAt.toISOString(),
      lastSeenAt: e.lastSeenAt.toISOString(),
      answers: e.answers,
      acceptedAt: isoOrNull(e.acceptedAt),
      sampleChunkId: e.sampleChunkId,
      envelope: e.shape.envelope,
      statusText: e.shape.status,
      units: { ...e.shape.units },
      paths: Object.fromEntries(Object.entries(e.shape.paths).map(([p, t]) => [p, [...t]])),
      previous: e.previous,
      changes: e.changes && {
        added: [...e.changes.added],
        gone: [...e.changes.gone],
        typeChanged: e.changes.typeChanged.map((c) => ({
          path: c.path,
          from: [...c.from],
          to: [...c.to],
        })),
        unitChanged: e.changes.unitChanged.map((c) => ({ ...c })),
        ...(e.changes.envelope && { envelope: e.changes.envelope }),
        ...(e.changes.status && { status: e.changes.status }),
      },
    })),
  };
}
