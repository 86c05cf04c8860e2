/**
 * The history window learned per dataset and API key (`ENVDATA_HISTORY_WINDOW=auto`): how long a
 * range the service accepts per request is plan-dependent and not published, so envdata starts at
 * the 48 h every plan accepts and asks for longer ranges one chunk at a time (a probe), doubling
 * while they are accepted and halving the distance to what was refused once one is not. Pure
 * functions; the ledger keeps the knowledge (`envdata.history_window`).
 */

/** Where the learned window applies: one API key (by fingerprint, never the key) at one address. */
export interface WindowScope {
  /** The first 16 hex digits of the key's SHA-256 (`keyFingerprint`). */
  readonly keyFingerprint: string;
  /** ENVDATA_BASE_URL: another address is another service, with its own limits. */
  readonly baseUrl: string;
}

/** What is known of the longest range the service accepts, for one dataset and scope. */
export interface WindowKnowledge {
  /** The longest window a request was answered for; `null` before the first answer. */
  readonly acceptedHours: number | null;
  /** The shortest window refused as too long since; always longer than `acceptedHours`. */
  readonly refusedHours: number | null;
}

/** Nothing known yet. */
export const UNKNOWN_WINDOW: WindowKnowledge = Object.freeze({
  acceptedHours: null,
  refusedHours: null,
});

/** The first window asked for: the 48 h three independent sources say every plan accepts. */
export const START_WINDOW_HOURS = 48;

/** The longest window ever asked for: 31 days. */
export const MAX_WINDOW_HOURS = 31 * 24;

/**
 * Probes per run and dataset at most (the first chunk of an unknown key included): enough to go
 * 48 → 96 → 192 → 144 → 168 h, or 48 h to the cap, in one run. A refused probe costs one call.
 */
export const MAX_PROBES_PER_RUN = 6;

/** Between an accepted and a refused window, probes step in whole days. */
const STEP_HOURS = 24;

/** The window to plan next, and whether it is a probe (longer than any accepted so far). */
export interface NextWindow {
  readonly hours: number;
  readonly probe: boolean;
}

/**
 * The window to plan the next chunk with. Unknown: 48 h (halved below a refused window), as a
 * probe. Known: twice the accepted window (up to `MAX_WINDOW_HOURS`) until one is refused, then
 * the whole-day middle between accepted and refused; when no whole day fits between them, the
 * accepted window, settled.
 *
 * @example nextWindow({ acceptedHours: 96, refusedHours: 192 }) // { hours: 144, probe: true }
 */
export function nextWindow(known: WindowKnowledge): NextWindow {
  const refused = known.refusedHours ?? Infinity;
  const accepted = known.acceptedHours;
  if (accepted === null) {
    let hours = START_WINDOW_HOURS;
    while (hours >= refused && hours > 1) hours = Math.max(1, Math.floor(hours / 2));
    return { hours, probe: true };
  }
  const target =
    refused === Infinity
      ? Math.min(2 * accepted, MAX_WINDOW_HOURS)
      : accepted + Math.floor((refused - accepted) / 2 / STEP_HOURS) * STEP_HOURS;
  return target > accepted && target < refused
    ? { hours: target, probe: true }
    : { hours: accepted, probe: false };
}

/**
 * The window to plan with once no probe may be made (the run has made its probes, or one is in
 * flight for another run): the accepted window, else the first one.
 */
export function settledWindow(known: WindowKnowledge): number {
  return known.acceptedHours ?? nextWindow(known).hours;
}

/**
 * After the service answered a window of `hours`: the accepted window grows to it; a refusal at
 * or below it is forgotten (the plan was upgraded).
 */
export function afterAccepted(known: WindowKnowledge, hours: number): WindowKnowledge {
  const accepted = Math.max(known.acceptedHours ?? 0, hours);
  const refused =
    known.refusedHours !== null && known.refusedHours <= accepted ? null : known.refusedHours;
  return { acceptedHours: accepted, refusedHours: refused };
}

/**
 * After the service refused a window of `hours` as too long: it becomes the ceiling; an accepted
 * window at or above it is forgotten (the plan was downgraded: learn again from below).
 */
export function afterRefused(known: WindowKnowledge, hours: number): WindowKnowledge {
  const refused = Math.min(known.refusedHours ?? Infinity, hours);
  const accepted =
    known.acceptedHours !== null && known.acceptedHours >= refused ? null : known.acceptedHours;
  return { acceptedHours: accepted, refusedHours: refused };
}

/**
 * How long the pieces of a refused chunk of `hours` are, `known` being what the refusal taught:
 * the accepted window when it is shorter (a refused probe goes back to the size known to work,
 * so it costs the one call), else `undefined`: halves, as without learning.
 */
export function pieceHoursAfterRefusal(known: WindowKnowledge, hours: number): number | undefined {
  return known.acceptedHours !== null && known.acceptedHours < hours
    ? known.acceptedHours
    : undefined;
}
