/**
 * The events envdata tells a person of (issue 24), one per state transition:
 * - `run-ended`: a run ended failed, or with quarantined hours, failed chunks or values set
 *   aside;
 * - `key-refused`: the service refused the key (401) and the run stopped;
 * - `product-refused`: the service refused a dataset to the key (403);
 * - `wrong-address`: a run stopped as `WRONG_ADDRESS`;
 * - `run-stopped`: a run stopped for another reason no retry fixes;
 * - `quota-reached` / `quota-freed`: a calendar quota held the runs, and its reset came (no
 *   longer recorded for a hold that resolves itself: `run-quota-bound` says it once per run);
 * - `run-quota-bound`: a run is held by the quota or the budget for the first time, with the day
 *   it is expected to finish; nothing to do, said once per run rather than twice a quota day;
 * - `freshness-breached` / `freshness-recovered`: locations of a dataset lag more than
 *   ENVDATA_FRESHNESS_MAX_LAG, and later none does;
 * - `no-worker`: runs wait and no worker has been connected for ENVDATA_NO_WORKER_ALERT;
 * - `sync-missed`: the nightly sync did not start within an hour of its schedule;
 * - `upstream-changed`: an answer of the service had a shape never seen before for its endpoint
 *   (`recordUpstreamShape`: one per shape, whatever the number of answers and workers);
 * - `bi-role-lifted`: a BI role lifted a timeout or its connection limit for itself (`ALTER ROLE
 *   … SET statement_timeout = 0`), put back by the periodic check (`checkBiRoles`) or, when this
 *   role may not, waiting for `envdata bi-role`; one per time it happened;
 * - `run-revised`: an ended run revised more than ENVDATA_ALERT_REVISED_SHARE of the hours it
 *   re-read (values the service changed since an earlier answer), once per run;
 * - `test`: `envdata notify test` (never in the outbox).
 */
export const NOTIFICATION_EVENTS = [
  'run-ended',
  'key-refused',
  'product-refused',
  'wrong-address',
  'run-stopped',
  'quota-reached',
  'quota-freed',
  'run-quota-bound',
  'freshness-breached',
  'freshness-recovered',
  'no-worker',
  'sync-missed',
  'upstream-changed',
  'bi-role-lifted',
  'run-revised',
  'test',
] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];
