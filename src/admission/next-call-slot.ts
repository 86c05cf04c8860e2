/** What `nextCallSlot` decided: the slots to keep (oldest first) and the slot, or none. */
export interface NextCallSlot {
  readonly slots: number[];
  /** The slot reserved; `undefined` beyond the horizon (`slots` then unchanged but dropped ones). */
  readonly slot: number | undefined;
  readonly waitMs: number;
}

/**
 * The call slots' rule (`WindowCounters`) on a sorted array, oldest first, at the backend's `now`:
 * what `PostgresWindowCounters` runs under the rule's lock. `RedisWindowCounters` runs the same
 * in Lua.
 */
export function nextCallSlot(
  current: readonly number[],
  now: number,
  rule: {
    readonly max: number;
    readonly windowMs: number;
    readonly horizonMs: number;
    readonly spacingMs: number;
    readonly moving: number | undefined;
  },
): NextCallSlot {
  const { max, windowMs, horizonMs, spacingMs, moving } = rule;
  const slots = current.filter((s) => s > now - windowMs);
  if (moving !== undefined) {
    const at = slots.indexOf(moving);
    if (at >= 0) {
      slots.splice(at, 1);
      // No slot a window after the missed one: every window that holds now held the missed one.
      if ((slots.at(-1) ?? Number.NEGATIVE_INFINITY) < moving + windowMs) {
        const slot = Math.max(now, moving);
        let i = slots.length;
        while (i > 0 && slots[i - 1]! > slot) i -= 1;
        slots.splice(i, 0, slot);
        return { slots, slot, waitMs: slot - now };
      }
    }
  }
  const latest = slots.at(-1);
  let slot = latest === undefined ? now : Math.max(now, latest + spacingMs);
  if (slots.length >= max) slot = Math.max(slot, slots[slots.length - max]! + windowMs);
  if (slot - now > horizonMs) return { slots, slot: undefined, waitMs: slot - now };
  slots.push(slot);
  return { slots, slot, waitMs: slot - now };
}
