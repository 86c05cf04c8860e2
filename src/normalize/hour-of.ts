const HOUR_MS = 3_600_000;

/** The UTC hour an instant falls in. */
export function hourOf(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / HOUR_MS) * HOUR_MS);
}
