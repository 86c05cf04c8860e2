import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { access, readFile, writeFile } from 'node:fs/promises';
import type { CommandContext } from './command-context.js';
import { parseDatasetOption, parseHourBounds } from './parse-cli-values.js';
import { usageError } from './usage-error.js';
import type { Dataset } from '../types.js';

export interface CertifyOptions {
  location?: string;
  dataset?: string;
  from?: string;
  to?: string;
  out?: string;
  key?: string;
  rowsOut?: string;
  requireComplete?: boolean;
}

export interface KeygenOptions {
  outPrivate: string;
  outPublic: string;
}

export interface VerifyOptions {
  publicKey?: string;
  rows?: string;
}

/** `2024-01-01T00:00:00Z` reads as `2024-01-01T00:00:00` (UTC either way). */
const withoutZ = (value: string) => value.replace(/(?<=\d)Z$/, '');

/** A file's text, or a usage error naming it (never its content). */
async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(
      `cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

/** `envdata certify keygen`: both files, refusing to overwrite either; the private one 0600. */
export async function runKeygen(context: CommandContext, options: KeygenOptions): Promise<void> {
  const [{ generateCertifyKeys, readPublicKey }, { keyIdOf }] = await Promise.all([
    import('../certify/certify-keys.js'),
    import('../certify/dsse.js'),
  ]);
  const { privatePem, publicPem } = generateCertifyKeys();
  const write = async (path: string, text: string, mode: number) => {
    try {
      await writeFile(path, text, { mode, flag: 'wx' });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw usageError(
        code === 'EEXIST'
          ? `${path} exists: not overwritten`
          : `cannot write ${path}: ${code ?? 'error'}`,
      );
    }
  };
  await write(options.outPrivate, privatePem, 0o600);
  await write(options.outPublic, publicPem, 0o644);
  context.print(`wrote the private key to ${options.outPrivate} (mode 0600: keep it secret)`);
  context.print(`wrote the public key to ${options.outPublic} (give it to verifiers)`);
  context.print(`key id ${keyIdOf(readPublicKey(publicPem, options.outPublic))}`);
}

/** `envdata certify --location … --dataset … --from … --to …`. */
export async function runCertify(
  context: CommandContext,
  options: CertifyOptions,
  envdataVersion: string,
): Promise<void> {
  const missing = (['location', 'dataset', 'from', 'to'] as const).filter((o) => !options[o]);
  if (missing.length > 0) {
    throw usageError(
      `required: ${missing.map((o) => `--${o}`).join(', ')} (or \`certify keygen\`)`,
    );
  }
  const reference = options.location!;
  const [dataset, ...more] = parseDatasetOption(options.dataset!);
  if (dataset === undefined || more.length > 0)
    throw usageError('--dataset must be weather or pollen');
  const { from, to } = parseHourBounds({
    from: withoutZ(options.from!),
    to: withoutZ(options.to!),
  });
  const env = context.io.env;
  const [{ readPrivateKey }, { resolveLocations }, { certifyRange }] = await Promise.all([
    import('../certify/certify-keys.js'),
    import('../locations/resolve-locations.js'),
    import('../certify/certify-range.js'),
  ]);
  const privateKey = options.key
    ? readPrivateKey(await readText(options.key, 'the key'), `--key ${options.key}`)
    : env.ENVDATA_CERTIFY_KEY?.trim()
      ? readPrivateKey(env.ENVDATA_CERTIFY_KEY, 'ENVDATA_CERTIFY_KEY')
      : env.ENVDATA_CERTIFY_KEY_FILE?.trim()
        ? readPrivateKey(
            await readText(env.ENVDATA_CERTIFY_KEY_FILE, 'the key'),
            `ENVDATA_CERTIFY_KEY_FILE ${env.ENVDATA_CERTIFY_KEY_FILE}`,
          )
        : undefined;
  if (!privateKey) {
    throw usageError(
      'no signing key: --key FILE, ENVDATA_CERTIFY_KEY (PEM) or ENVDATA_CERTIFY_KEY_FILE (make one with `envdata certify keygen`)',
    );
  }
  const config = context.config;
  const rowsOut = options.rowsOut ? createWriteStream(options.rowsOut) : undefined;
  try {
    const certificate = await context.withApp(async (app) => {
      const [location] = await resolveLocations(app.db, [reference]);
      return certifyRange(app.db, {
        dataset: dataset as Dataset,
        location: location!,
        from,
        to,
        privateKey,
        envdataVersion,
        sourceHost: new URL(config.service.baseUrl).host,
        ...(rowsOut && {
          onHour: async (lines: readonly string[]) => {
            if (lines.length > 0 && !rowsOut.write(lines.map((l) => `${l}\n`).join(''))) {
              await once(rowsOut, 'drain');
            }
          },
        }),
      });
    }, config);
    const { predicate } = certificate.statement;
    if (options.requireComplete && !predicate.complete) {
      const first = predicate.ranges.find((r) => r.status !== 'landed')!;
      context.io.stderr.write(
        `envdata: not complete: the first hour not landed is ${first.from} (${first.status}); nothing written (without --require-complete the certificate says which hours are not landed)\n`,
      );
      context.exitCode = 1;
      return;
    }
    const text = `${JSON.stringify(certificate.envelope, null, 2)}\n`;
    const summary = `${predicate.dataset} at ${predicate.location.name} (id ${predicate.location.id}), [${predicate.from}, ${predicate.to}): ${predicate.rowCount} rows, ${predicate.complete ? 'every hour landed' : `${predicate.ranges.filter((r) => r.status !== 'landed').reduce((n, r) => n + r.hours, 0)} of ${predicate.hourCount} hours not landed`}; key id ${certificate.envelope.signatures[0]!.keyid}`;
    if (options.out) {
      await writeFile(options.out, text);
      context.print(`wrote the certificate of ${summary} to ${options.out}`);
    } else {
      context.io.stdout.write(text);
      context.io.stderr.write(`certified ${summary}\n`);
    }
    if (options.rowsOut)
      context.io.stderr.write(`wrote the canonical rows to ${options.rowsOut}\n`);
  } finally {
    if (rowsOut) {
      rowsOut.end();
      await once(rowsOut, 'close');
    }
  }
}

/** `envdata verify FILE`: signature first, then the rows (warehouse or --rows file). */
export async function runVerify(
  context: CommandContext,
  file: string,
  options: VerifyOptions,
): Promise<void> {
  const keyPath = options.publicKey ?? context.io.env.ENVDATA_CERTIFY_PUBLIC_KEY?.trim();
  if (!keyPath) {
    throw usageError(
      'no public key: --public-key FILE or ENVDATA_CERTIFY_PUBLIC_KEY (a file); trust comes from the key you hold, never from the certificate',
    );
  }
  const [{ readPublicKey }, { openCertificate, CertificateRefused }] = await Promise.all([
    import('../certify/certify-keys.js'),
    import('../certify/open-certificate.js'),
  ]);
  const publicKey = readPublicKey(await readText(keyPath, 'the public key'), keyPath);
  const text = await readText(file, 'the certificate');
  let statement;
  try {
    statement = openCertificate(text, publicKey);
  } catch (error) {
    if (!(error instanceof CertificateRefused)) throw error;
    context.io.stderr.write(`envdata: ${file}: ${error.message}\n`);
    context.exitCode = 1;
    return;
  }
  const { compareRows } = await import('../certify/compare-rows.js');
  const p = statement.predicate;
  let comparison;
  if (options.rows) {
    await access(options.rows).catch((error: NodeJS.ErrnoException) => {
      throw usageError(`cannot read the rows file ${options.rows}: ${error.code ?? 'error'}`);
    });
    const { rowsFileHours } = await import('../certify/rows-file-hours.js');
    comparison = await compareRows(statement, rowsFileHours(options.rows, p.from, p.to));
  } else {
    const { compareWarehouse } = await import('../certify/compare-warehouse.js');
    comparison = await context.withApp((app) => compareWarehouse(app.db, statement));
  }
  const what = options.rows ? `the rows file ${options.rows}` : 'the warehouse';
  const range = `${p.dataset} at ${p.location.name} (id ${p.location.id}), [${p.from}, ${p.to})`;
  if (!comparison.same) {
    context.io.stderr.write(
      `envdata: ${what} differs from the certificate of ${range}: ${comparison.hour === undefined ? 'no single hour can be named' : `first at hour ${comparison.hour}`} (certified ${p.rowCount} rows, now ${comparison.rowCount})\n`,
    );
    context.exitCode = 1;
    return;
  }
  context.print(
    `verified: ${range}, ${p.rowCount} rows, ${p.complete ? 'every hour landed' : 'not every hour landed (see its ranges)'}; signed by key id ${(await import('../certify/dsse.js')).keyIdOf(publicKey)}; ${what} matches its digest`,
  );
}
