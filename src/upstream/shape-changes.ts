import { SHARE_FIELDS, type ShareField, type ShareUnit } from '../types.js';
import type { AnswerShape, JsonType } from './answer-shape.js';

/** How a shape differs from the one seen before it (`envdata upstream`, the notification). */
export interface ShapeChanges {
  /** Key paths the new shape has and the old one had not: a new field. */
  readonly added: readonly string[];
  /** Key paths the old shape had and the new one has not: a field that stopped coming. */
  readonly gone: readonly string[];
  /** Key paths whose JSON types changed (`humidity` 81 → `"81 %"`). */
  readonly typeChanged: readonly {
    readonly path: string;
    readonly from: readonly JsonType[];
    readonly to: readonly JsonType[];
  }[];
  /** Share fields whose told unit changed (a unit told for the first time is not a change). */
  readonly unitChanged: readonly {
    readonly field: ShareField;
    readonly from: ShareUnit;
    readonly to: ShareUnit;
  }[];
  /** The envelope's form, when it changed (`status, data.history[]` → `message, data[]`). */
  readonly envelope?: { readonly from: string; readonly to: string };
  /** The `message`/`status` text, when it changed (`Success` → `success`). */
  readonly status?: { readonly from: string | null; readonly to: string | null };
}

/** What changed from `before` to `after`; every list empty when only units were first told. */
export function shapeChanges(before: AnswerShape, after: AnswerShape): ShapeChanges {
  const added = Object.keys(after.paths).filter((p) => before.paths[p] === undefined);
  const gone = Object.keys(before.paths).filter((p) => after.paths[p] === undefined);
  const typeChanged = Object.entries(after.paths).flatMap(([path, to]) => {
    const from = before.paths[path];
    return from !== undefined && from.join() !== to.join() ? [{ path, from, to }] : [];
  });
  const unitChanged = SHARE_FIELDS.flatMap((field) => {
    const from = before.units[field];
    const to = after.units[field];
    return from !== undefined && to !== undefined && from !== to ? [{ field, from, to }] : [];
  });
  return {
    added,
    gone,
    typeChanged,
    unitChanged,
    ...(before.envelope !== after.envelope && {
      envelope: { from: before.envelope, to: after.envelope },
    }),
    ...(before.status !== after.status && { status: { from: before.status, to: after.status } }),
  };
}

/** Whether `changes` holds no change at all (two shapes that differ only by a unit first told). */
export function noChanges(changes: ShapeChanges): boolean {
  return (
    changes.added.length === 0 &&
    changes.gone.length === 0 &&
    changes.typeChanged.length === 0 &&
    changes.unitChanged.length === 0 &&
    changes.envelope === undefined &&
    changes.status === undefined
  );
}

/** One line per change, for the CLI and the notification: `+ data[].dewPointText (string)`. */
export function describeChanges(changes: ShapeChanges): string[] {
  return [
    ...changes.added.map((p) => `key added: ${p}`),
    ...changes.gone.map((p) => `key gone: ${p}`),
    ...changes.typeChanged.map(
      (c) => `type changed: ${c.path} ${c.from.join('|')} → ${c.to.join('|')}`,
    ),
    ...changes.unitChanged.map((c) => `unit changed: ${c.field} ${c.from} → ${c.to}`),
    ...(changes.envelope ? [`envelope: ${changes.envelope.from} → ${changes.envelope.to}`] : []),
    ...(changes.status
      ? [`status text: ${String(changes.status.from)} → ${String(changes.status.to)}`]
      : []),
  ];
}
