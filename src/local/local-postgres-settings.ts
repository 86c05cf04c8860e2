import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { EnvdataError } from '../errors/envdata-error.js';
import { LOCAL_PASSWORD_PREFIX } from '../warehouse/local-postgres-password.js';
import type { LocalPostgresLayout } from './local-postgres-layout.js';

/** The superuser `initdb` creates; the warehouse's database is `LOCAL_DATABASE`. */
export const LOCAL_SUPERUSER = 'postgres';
export const LOCAL_DATABASE = 'envdata';

/**
 * What a local PostgreSQL was created with, kept in its directory so that `start` after `stop`
 * (or a later demo) finds it at the same URL: exported settings stay right.
 */
export interface LocalPostgresSettings {
  /** Loopback port the server listens on; chosen free at creation, changed only when taken. */
  readonly port: number;
  /** The superuser's password: random, so other users of the machine cannot log in. */
  readonly password: string;
}

const settingsSchema = z.object({
  port: z.number().int().min(1).max(65_535),
  password: z.string().regex(/^[A-Za-z0-9_-]{16,}$/),
});

/** New settings: `port`, a fresh random password. */
export function newLocalPostgresSettings(port: number): LocalPostgresSettings {
  return { port, password: `${LOCAL_PASSWORD_PREFIX}${randomBytes(18).toString('base64url')}` };
}

/**
 * The settings in the layout's directory, or `undefined` when there are none yet. An unreadable
 * file throws `LOCAL_POSTGRES_FAILED` saying how to start afresh.
 */
export async function readLocalPostgresSettings(
  layout: LocalPostgresLayout,
): Promise<LocalPostgresSettings | undefined> {
  let text: string;
  try {
    text = await readFile(layout.settingsFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = settingsSchema.safeParse(parsed);
  if (!result.success) {
    throw new EnvdataError(
      'LOCAL_POSTGRES_FAILED',
      `the local PostgreSQL's settings in ${layout.settingsFile} are damaged: remove ${layout.dir} to start afresh (its data is lost)`,
    );
  }
  return result.data;
}

/** Writes the settings, readable by their owner only (the password is in them). */
export async function writeLocalPostgresSettings(
  layout: LocalPostgresLayout,
  settings: LocalPostgresSettings,
): Promise<void> {
  await writeFile(layout.settingsFile, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
}

/** The URL of the warehouse's database on the local server (`database` for another one). */
export function localDatabaseUrl(
  settings: LocalPostgresSettings,
  database: string = LOCAL_DATABASE,
): string {
  return `postgres://${LOCAL_SUPERUSER}:${settings.password}@127.0.0.1:${settings.port}/${database}`;
}
