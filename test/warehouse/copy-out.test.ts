import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyOut } from '../../src/warehouse/wire/index.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

const wh = useTestWarehouse();
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client({ connectionString: wh.env.databaseUrl });
  await client.connect();
});
afterAll(async () => {
  await client.end();
});

/** Every byte a COPY's stream gives, and the pieces it gave them in. */
async function received(stream: NodeJS.ReadableStream): Promise<{ text: string; pieces: number }> {
  const parts: Buffer[] = [];
  await pipeline(
    stream,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        // A copy: CopyOut hands out views of the socket's buffers.
        parts.push(Buffer.from(chunk));
        done();
      },
    }),
  );
  return { text: Buffer.concat(parts).toString('utf8'), pieces: parts.length };
}

// Rows of every length from 1 to 3000 bytes, so that headers and rows fall across socket reads.
const ROWS = `select i, repeat(chr(97 + i % 26), (i * 7919) % 3000) as s, i * 0.5 as f
  from generate_series(1, 20000) i order by i`;

describe('CopyOut, a COPY … TO STDOUT read as one stream', () => {
  it('gives the bytes pg-copy-streams gives, its row count, and the client goes on', async () => {
    const statement = `COPY (${ROWS}) TO STDOUT (FORMAT csv)`;
    const expected = await received(client.query(copyTo(statement)));
    const copy = client.query(new CopyOut(statement));
    const got = await received(copy);
    expect(got.text.length).toBeGreaterThan(20_000_000);
    expect(got.text).toBe(expected.text);
    // One piece per socket read, not one per row.
    expect(got.pieces).toBeLessThan(20_000 / 10);
    const { rows } = await client.query<{ n: number }>('select 41 + 1 as n');
    expect(rows[0]!.n).toBe(42);
    expect(copy.rowCount).toBe(20_000);
  });

  it('skips notices raised amid the rows', async () => {
    await client.query(`create or replace function pg_temp.noisy(i int) returns int language plpgsql as $$
      begin if i % 1000 = 0 then raise notice 'row %', i; end if; return i; end $$`);
    const notices: string[] = [];
    const onNotice = (n: { message?: string }) => notices.push(n.message ?? '');
    client.on('notice', onNotice);
    try {
      const got = await received(
        client.query(
          new CopyOut(
            `COPY (select pg_temp.noisy(i) from generate_series(1, 5000) i order by i) TO STDOUT`,
          ),
        ),
      );
      expect(got.text).toBe(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join(''));
    } finally {
      client.off('notice', onNotice);
    }
  });

  it('fails with the server error when the query fails midway, and the client goes on', async () => {
    const copy = client.query(
      new CopyOut(
        `COPY (select 1 / (i - 15000) as n, repeat('x', 200) from generate_series(1, 20000) i) TO STDOUT`,
      ),
    );
    await expect(received(copy)).rejects.toThrow(/division by zero/);
    const { rows } = await client.query<{ n: number }>('select 2 as n');
    expect(rows[0]!.n).toBe(2);
  });

  it('fails with the server error when the statement is refused, and the client goes on', async () => {
    await expect(
      received(client.query(new CopyOut('COPY (select * from no_such_table) TO STDOUT'))),
    ).rejects.toThrow(/no_such_table/);
    const { rows } = await client.query<{ n: number }>('select 3 as n');
    expect(rows[0]!.n).toBe(3);
  });
});
