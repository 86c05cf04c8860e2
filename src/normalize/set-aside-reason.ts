/**
 * Values set aside: values the service sent that are not in the warehouse until a person acts,
 * each record's recorded as a row of `envdata.quarantine` whose `reason` starts with one of these
 * prefixes. Its hour may have landed (its other values did); what was set aside waits:
 *
 * - `shareUnitUnknown`: a share (`humidity`, `cloudCover`, `precipProbability`) whose unit the
 *   answer could not tell and no earlier answer of its source taught; filled by
 *   `envdata rebuild` once a later answer has told it.
 * - `upstreamShapeHeld`: the values of an answer of a shape not yet accepted (drift policy
 *   `quarantine`); filled when `envdata upstream accept` accepts the shape.
 *
 * A run with any does not succeed (`--wait` exits 1), and `status` lists them
 * (`src/ledger/values-set-aside.ts` counts them from these prefixes).
 */
export const SET_ASIDE_REASONS = {
  shareUnitUnknown: 'share unit unknown:',
  upstreamShapeHeld: 'upstream shape held:',
} as const;

/** Why values were set aside: a key of `SET_ASIDE_REASONS`. */
export type SetAsideKind = keyof typeof SET_ASIDE_REASONS;

/**
 * What ends the list of values a `shareUnitUnknown` reason names, and what separates them:
 * `share unit unknown: humidity 1, cloudCover 1 not landed (why…)`. Each item is the field,
 * a space and the value sent, so the ledger counts the values by field from the reason.
 */
export const SET_ASIDE_LIST = { separator: ', ', end: ' not landed' } as const;

/**
 * The reason a record whose shares `values` (field and value sent) were set aside for their
 * unknown unit is quarantined with, `because` saying why the unit is unknown.
 */
export function shareUnitUnknownReason(
  values: readonly (readonly [field: string, value: unknown])[],
  because: string,
): string {
  const list = values.map(([field, value]) => `${field} ${String(value)}`);
  return (
    `${SET_ASIDE_REASONS.shareUnitUnknown} ${list.join(SET_ASIDE_LIST.separator)}` +
    `${SET_ASIDE_LIST.end} (${because})${OTHER_VALUES_LANDED}`
  );
}

/** How a `shareUnitUnknown` reason ends, after why. */
const OTHER_VALUES_LANDED = "; the record's other values landed";

/**
 * What a `shareUnitUnknownReason` says: the fields it names (with the value sent, as text) and
 * why their unit was unknown; `undefined` for another reason. So a reason can be written again
 * naming fewer fields, when some of them were filled.
 */
export function readShareUnitUnknownReason(reason: string):
  | {
      readonly values: readonly (readonly [field: string, value: string])[];
      readonly because: string;
    }
  | undefined {
  const prefix = `${SET_ASIDE_REASONS.shareUnitUnknown} `;
  const end = reason.indexOf(`${SET_ASIDE_LIST.end} (`);
  if (!reason.startsWith(prefix) || end < 0 || !reason.endsWith(`)${OTHER_VALUES_LANDED}`)) {
    return undefined;
  }
  const list = reason.slice(prefix.length, end);
  const values = list === '' ? [] : list.split(SET_ASIDE_LIST.separator).map(itemOf);
  const because = reason.slice(
    end + SET_ASIDE_LIST.end.length + 2,
    reason.length - OTHER_VALUES_LANDED.length - 1,
  );
  return { values, because };
}

/** `cloudCover 1` → `['cloudCover', '1']`. */
function itemOf(item: string): readonly [field: string, value: string] {
  const space = item.indexOf(' ');
  return space < 0 ? [item, ''] : [item.slice(0, space), item.slice(space + 1)];
}

/**
 * The reason every hour of an answer of the shape `digest`, not accepted, is held with under
 * the drift policy `policy` (`quarantine` or `freeze`): the digest comes first, so the ledger
 * names the shape to accept (`upstream shape held: 3f9a0c21b7de …`).
 */
export function upstreamShapeHeldReason(digest: string, policy: string): string {
  return (
    `${SET_ASIDE_REASONS.upstreamShapeHeld} ${digest} (drift policy ${policy}): the answer's ` +
    `shape is not accepted; its values land from the archive, with no call, when ` +
    `\`envdata upstream accept ${digest}\` accepts it`
  );
}
