import { z } from 'zod';
import { valuesOf, type SetAsideGroup } from '../../ledger/values-set-aside.js';
import { count } from './json-document.js';

/** Values set aside (`valuesSetAside`), one entry per reason and source, largest first. */
export const setAsideJson = z
  .array(
    z.object({
      reason: z
        .enum(['share unit unknown', 'upstream shape held'])
        .describe(
          '`share unit unknown` (the answer could not tell a share’s unit and no earlier answer taught it) or `upstream shape held` (an answer of a shape not yet accepted; more may come)',
        ),
      source: z
        .string()
        .describe('what answered them: `weather_history`, or a snapshot (`weather_latest`, …)'),
      values: count.describe(
        'values set aside: of the fields named in `fields`, or one per held record',
      ),
      hours: count.describe('hours (location and hour) with values set aside'),
      records: count.describe('records with values set aside (rows of `envdata.quarantine`)'),
      fields: z
        .record(z.string().meta({ title: 'field' }), count)
        .describe(
          'values set aside by field, e.g. `{"humidity": 48, "cloudCover": 30}`; `{}` for a held shape',
        ),
      command: z
        .string()
        .describe(
          'what fills them: `envdata rebuild --dataset weather`, `envdata upstream accept SHAPE`, `envdata sync --now`',
        ),
      when: z
        .string()
        .describe(
          'when to run it, for people: `the worker fills them from the archive once a later weather answer tells the unit; if some stay after one has`',
        ),
    }),
  )
  .describe(
    'values the service sent that are not in the warehouse until `command` runs (shares of history: until a later answer tells their unit, when the worker fills them itself); their hours landed otherwise. A run with any does not succeed (`--wait` exits 1). `[]` when none',
  );

export type SetAsideJson = z.infer<typeof setAsideJson>;

/** `valuesSetAside` as JSON. */
export function toSetAsideJson(groups: readonly SetAsideGroup[]): SetAsideJson {
  return groups.map((g) => ({
    reason: g.kind === 'shareUnitUnknown' ? 'share unit unknown' : 'upstream shape held',
    source: g.source,
    values: valuesOf(g),
    hours: g.hours,
    records: g.records,
    fields: { ...g.fields },
    command: g.command,
    when: g.when,
  }));
}
