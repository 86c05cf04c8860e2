import pg from 'pg';

/**
 * Runs one statement on its own connection to `url` (create or drop a database: what cannot run
 * in a transaction or on a pool shared with the database it drops), then closes it.
 */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
