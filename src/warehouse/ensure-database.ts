import pg from 'pg';
import { SQLSTATE, errorCode } from '../errors/pg-errors.js';
import { databaseNameOf, withDatabase } from './database-url.js';
import { databaseUnavailable, isConnectionFailure } from './database-unavailable.js';

/**
 * Creates the database named in `url` if it does not exist yet. Safe when several processes do
 * it at once: a concurrent creation is not an error. Returns whether this call created it.
 */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseNameOf(url);
  const client = new pg.Client({
    connectionString: withDatabase(url, 'postgres'),
    connectionTimeoutMillis: 5_000,
  });
  try {
    await client.connect();
  } catch (error) {
    throw isConnectionFailure(error) ? databaseUnavailable(url, error) : error;
  }
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return false;
    try {
      await client.query(`create database ${pg.escapeIdentifier(name)}`);
      return true;
    } catch (error) {
      const code = errorCode(error);
      // A concurrent `create database` of the same name: another process won.
      if (code === SQLSTATE.duplicateDatabase || code === SQLSTATE.uniqueViolation) return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}
