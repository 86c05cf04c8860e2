import { readFile, stat, writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { generateCertifyKeys } from '../../src/certify/certify-keys.js';
import type { CompletenessStatement } from '../../src/certify/completeness-statement.js';
import type { DsseEnvelope } from '../../src/certify/dsse.js';
import { FactWriter } from '../../src/landing/fact-writer.js';
import { hoursBetween, pollenHistoryBody } from '../fixtures/payload-bodies.js';
import { runCliInProcess } from '../harness/run-cli-in-process.js';
import { runEnvdata } from '../harness/run-envdata.js';
import { useTempDir } from '../harness/temp-dir.js';
import { useTestWarehouse } from '../harness/test-warehouse.js';

// `envdata certify` then `envdata verify`, on facts landed through the production write path:
// an untouched range verifies (from the warehouse and offline from its rows file); a value
// changed, an hour deleted, a byte of the certificate edited or another public key fails, exit 1,
// naming the hour or the signature.

const wh = useTestWarehouse();
const dir = useTempDir('envdata-certify-');
let berlin: number;
const files = { key: '', pub: '', otherPub: '', cert: '', rows: '' };

const envdata = (args: readonly string[], extra: Record<string, string> = {}) =>
  runCliInProcess(args, wh.env.cliEnv(extra));

const statementOf = (envelope: DsseEnvelope) =>
  JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as CompletenessStatement;

const verify = (extra: readonly string[] = []) =>
  envdata(['verify', files.cert, '--public-key', files.pub, ...extra]);

beforeAll(async () => {
  berlin = (await wh.addLocation({ name: 'Berlin', lat: 52.52, lng: 13.405, countryCode: 'DE' }))
    .locationId;
  await wh.landWeather(berlin, {
    from: new Date('2024-05-01T00:00:00Z'),
    to: new Date('2024-05-03T00:00:00Z'),
  });
  const keys = generateCertifyKeys();
  files.key = await dir.write('signing.key', keys.privatePem);
  files.pub = await dir.write('signing.pub', keys.publicPem);
  files.otherPub = await dir.write('other.pub', generateCertifyKeys().publicPem);
  files.cert = dir.path('berlin.cert.json');
  files.rows = dir.path('berlin.rows');
  const result = await envdata([
    'certify',
    '--location',
    'Berlin',
    '--dataset',
    'weather',
    '--from',
    '2024-05-01',
    '--to',
    '2024-05-04T00:00:00Z',
    '--key',
    files.key,
    '--out',
    files.cert,
    '--rows-out',
    files.rows,
  ]);
  expect(result.stderr).toContain('wrote the canonical rows');
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(
    /^wrote the certificate of weather at Berlin .*: 48 rows, 24 of 72 hours not landed/,
  );
});

describe('envdata certify', () => {
  it('writes an in-toto Statement v1 in a DSSE envelope: subject digest, hour ranges, answers', async () => {
    const envelope = JSON.parse(await readFile(files.cert, 'utf8')) as DsseEnvelope;
    expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
    expect(envelope.signatures).toHaveLength(1);
    expect(envelope.signatures[0]!.keyid).toMatch(/^[0-9a-f]{64}$/);
    const statement = statementOf(envelope);
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    expect(statement.predicateType).toBe('https://envdata.dev/completeness/v1');
    // The subject is the SHA-256 of the rows file, byte for byte.
    const { createHash } = await import('node:crypto');
    const rows = await readFile(files.rows);
    expect(statement.subject[0].digest.sha256).toBe(
      createHash('sha256').update(rows).digest('hex'),
    );
    expect(rows.toString('utf8').split('\n')[0]).toMatch(
      /^\["2024-05-01T00:00:00Z","weather_hourly",(-?[\d.e+-]+|null)(,[^,]+){17}\]$/,
    );
    const p = statement.predicate;
    expect(p).toMatchObject({
      dataset: 'weather',
      location: { id: berlin, name: 'Berlin', lat: 52.52, lng: 13.405 },
      from: '2024-05-01T00:00:00Z',
      to: '2024-05-04T00:00:00Z',
      canonicalForm: 'envdata-canonical-rows/v1',
      rowCount: 48,
      hourCount: 72,
      complete: false,
    });
    expect(p.hourDigests).toHaveLength(72 * 8);
    expect(p.hourDigests.slice(48 * 8)).toBe('e3b0c442'.repeat(24));
    expect(p.ranges.map((r) => [r.status, r.from, r.to, r.hours])).toEqual([
      ['landed', '2024-05-01T00:00:00Z', '2024-05-03T00:00:00Z', 48],
      ['not_fetched', '2024-05-03T00:00:00Z', '2024-05-04T00:00:00Z', 24],
    ]);
    const { rows: answers } = await sql<{ sha: string }>`
      select distinct encode(body_sha256, 'hex') as sha from envdata.answer
      where location_id = ${berlin}`.execute(wh.app.db);
    expect(p.ranges[0]!.answerDigests).toEqual(answers.map((a) => a.sha));
    expect(p.ranges[0]!.untracedRows).toBe(0);
    expect(p.ranges[1]!.reasons).toEqual(['nothing asked yet, or nothing recorded']);
  });

  it('--require-complete exits 1 naming the first hour not landed, writing nothing', async () => {
    const result = await envdata([
      'certify',
      ...['--location', `id:${berlin}`, '--dataset', 'weather'],
      ...['--from', '2024-05-01', '--to', '2024-05-04', '--key', files.key, '--require-complete'],
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'the first hour not landed is 2024-05-03T00:00:00Z (not_fetched)',
    );
  });

  it('refuses to run without a key (exit 2), and takes one from ENVDATA_CERTIFY_KEY', async () => {
    const args = [
      'certify',
      '--location',
      'Berlin',
      '--dataset',
      'weather',
      '--from',
      '2024-05-01',
      '--to',
      '2024-05-02',
    ];
    const none = await envdata(args);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no signing key');
    const fromEnv = await envdata(args, { ENVDATA_CERTIFY_KEY: await readFile(files.key, 'utf8') });
    expect(fromEnv.code).toBe(0);
    const envelope = JSON.parse(fromEnv.stdout) as DsseEnvelope;
    expect(statementOf(envelope).predicate.complete).toBe(true);
    expect(fromEnv.stdout).not.toContain('PRIVATE KEY');
  });
});

describe('envdata verify', () => {
  it('passes on the untouched range, from the warehouse and from the rows file', async () => {
    const warehouse = await verify();
    expect(warehouse.stderr).toBe('');
    expect(warehouse.code).toBe(0);
    expect(warehouse.stdout).toMatch(
      /^verified: weather at Berlin .*48 rows.*the warehouse matches/,
    );
    const offline = await verify(['--rows', files.rows]);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toContain(`the rows file ${files.rows} matches`);
  });

  it('offline through the real binary, with no database at all', async () => {
    const result = await runEnvdata([
      'verify',
      files.cert,
      '--public-key',
      files.pub,
      '--rows',
      files.rows,
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^verified: /);
  });

  it('another public key: exit 1, the signature named', async () => {
    const result = await envdata(['verify', files.cert, '--public-key', files.otherPub]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /signature does not verify \(key id [0-9a-f]{64}; the certificate names [0-9a-f]{64}\)/,
    );
  });

  it.each([
    ['payload', (e: DsseEnvelope) => ({ ...e, payload: flipOneChar(e.payload, 40) })],
    [
      'signature',
      (e: DsseEnvelope) => ({
        ...e,
        signatures: [{ ...e.signatures[0]!, sig: flipOneChar(e.signatures[0]!.sig, 10) }],
      }),
    ],
  ])('one byte of the %s edited: exit 1, the signature named', async (_what, edit) => {
    const envelope = JSON.parse(await readFile(files.cert, 'utf8')) as DsseEnvelope;
    const edited = await dir.write('edited.json', JSON.stringify(edit(envelope)));
    const result = await envdata(['verify', edited, '--public-key', files.pub]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/: signature does not verify \(key id [0-9a-f]{64}\)\n$/);
  });

  it('a rows file with one value changed or one hour removed: exit 1 naming that hour', async () => {
    const lines = (await readFile(files.rows, 'utf8')).split('\n');
    const changed = [...lines];
    changed[5] = changed[5]!.replace(/^(\["[^"]+","weather_hourly",)[^,]+/, '$1"x"');
    await writeFile(dir.path('changed.rows'), changed.join('\n'));
    const one = await verify(['--rows', dir.path('changed.rows')]);
    expect(one.code).toBe(1);
    expect(one.stderr).toContain('differs from the certificate of weather at Berlin');
    expect(one.stderr).toContain('first at hour 2024-05-01T05:00:00Z (certified 48 rows, now 48)');
    await writeFile(dir.path('short.rows'), lines.filter((_, i) => i !== 30).join('\n'));
    const short = await verify(['--rows', dir.path('short.rows')]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain(
      'first at hour 2024-05-02T06:00:00Z (certified 48 rows, now 47)',
    );
  });

  it('a value changed in the warehouse: exit 1 naming the hour; changed back, it verifies again', async () => {
    const at = new Date('2024-05-02T13:00:00Z');
    const { rows } = await sql<{ t: number }>`
      update envdata.weather_hourly set temperature_c = temperature_c + 0.5
      where location_id = ${berlin} and observed_at = ${at} returning temperature_c as t`.execute(
      wh.app.db,
    );
    expect(rows).toHaveLength(1);
    const changed = await verify();
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('envdata: the warehouse differs from the certificate');
    expect(changed.stderr).toContain('first at hour 2024-05-02T13:00:00Z');
    await sql`update envdata.weather_hourly set temperature_c = temperature_c - 0.5
      where location_id = ${berlin} and observed_at = ${at}`.execute(wh.app.db);
    expect((await verify()).code).toBe(0);
  });

  it('an hour deleted from the warehouse: exit 1 naming it', async () => {
    await sql`delete from envdata.weather_hourly
      where location_id = ${berlin} and observed_at = ${new Date('2024-05-01T20:00:00Z')}`.execute(
      wh.app.db,
    );
    const result = await verify();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'first at hour 2024-05-01T20:00:00Z (certified 48 rows, now 47)',
    );
  });
});

describe('envdata certify keygen', () => {
  it('writes the private key 0600 and the public key, refusing to overwrite', async () => {
    const args = [
      'certify',
      'keygen',
      '--out-private',
      dir.path('k.key'),
      '--out-public',
      dir.path('k.pub'),
    ];
    const result = await runEnvdata(args);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/key id [0-9a-f]{64}\n$/);
    expect(result.stdout).not.toContain('PRIVATE');
    expect((await stat(dir.path('k.key'))).mode & 0o777).toBe(0o600);
    expect(await readFile(dir.path('k.key'), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(await readFile(dir.path('k.pub'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    const again = await runEnvdata(args);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists: not overwritten');
  });
});

describe('pollen: types and species, one line each', () => {
  it('certifies and verifies a landed day', async () => {
    const from = '2024-06-01T00:00:00Z';
    const to = '2024-06-02T00:00:00Z';
    const window = { from: new Date(from), to: new Date(to) };
    await new FactWriter(wh.app.db, { archiveRaw: true }).land([
      await wh.landingOf('pollen', berlin, window, pollenHistoryBody(hoursBetween(from, to))),
    ]);
    const cert = dir.path('pollen.json');
    const rows = dir.path('pollen.rows');
    const made = await envdata([
      'certify',
      ...[
        '--location',
        'Berlin',
        '--dataset',
        'pollen',
        '--from',
        '2024-06-01',
        '--to',
        '2024-06-02',
      ],
      ...['--key', files.key, '--out', cert, '--rows-out', rows],
    ]);
    expect(made.code).toBe(0);
    const { count } = (
      await sql<{ count: string }>`
      select (select count(*) from envdata.pollen_hourly where location_id = ${berlin})
        + (select count(*) from envdata.pollen_species_hourly where location_id = ${berlin}) as count`.execute(
        wh.app.db,
      )
    ).rows[0]!;
    const statement = statementOf(JSON.parse(await readFile(cert, 'utf8')) as DsseEnvelope);
    expect(statement.predicate.rowCount).toBe(Number(count));
    expect(statement.predicate.complete).toBe(true);
    const text = await readFile(rows, 'utf8');
    expect(text).toContain('"pollen_hourly"');
    expect(text).toContain('"pollen_species_hourly"');
    const checked = await envdata(['verify', cert, '--public-key', files.pub]);
    expect(checked.code).toBe(0);
    expect((await envdata(['verify', cert, '--public-key', files.pub, '--rows', rows])).code).toBe(
      0,
    );
  });
});

/** `text` with the character at `index` replaced by another of the base64 alphabet. */
function flipOneChar(text: string, index: number): string {
  const c = text[index]!;
  return `${text.slice(0, index)}${c === 'A' ? 'B' : 'A'}${text.slice(index + 1)}`;
}
