/** What the global setup hands every test file (vitest `provide`/`inject`). */
export interface TestServices {
  /** Superuser URL of the Postgres the suite uses (database `postgres`). */
  readonly postgresAdminUrl: string;
  /** A migrated database every test file clones with `CREATE DATABASE … TEMPLATE`. */
  readonly templateDatabase: string;
  readonly redisUrl: string;
  /** Whether a Redis answered at `redisUrl` (always under CI=true and in project `redis`). */
  readonly redisAnswers: boolean;
  /** Unique to this run; test databases and queue prefixes start with it. */
  readonly runTag: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    services: TestServices;
  }
}
