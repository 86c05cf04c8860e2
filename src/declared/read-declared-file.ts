import path from 'node:path';
import { EnvdataError } from '../errors/envdata-error.js';
import { errorCode } from '../errors/pg-errors.js';
import { FileTooLargeError, openRegularFile } from '../locations/open-regular-file.js';
import type { DeclaredFile } from './declared-file.js';
import { parseDeclaredFile } from './parse-declared-file.js';
import { readDeclaredLocationFile } from './read-declared-location-file.js';

/**
 * Largest declared file read: 1 MiB. A point takes 30 to 60 bytes, so that is some 20,000 of
 * them written out, twenty times the 1,000 locations a warehouse keeps; more go in `file:`
 * entries. The bound also bounds YAML's parse, which takes far more memory than the text.
 */
export const MAX_DECLARED_FILE_BYTES = 1_048_576;

/**
 * Reads and checks `envdata.yaml` at `fileName` (`parseDeclaredFile`); its `file:` entries are
 * read in its folder (`readDeclaredLocationFile`), and it declares at most `maxRows` locations
 * in all (ENVDATA_IMPORT_MAX_ROWS), its own and its files' together. Only a regular file of at
 * most `MAX_DECLARED_FILE_BYTES` is read (not a FIFO, a device or a directory), and no more of
 * it than that: one that cannot be read is a `USAGE` error saying why.
 */
export async function readDeclaredFile(
  fileName: string,
  options: { env: Readonly<Record<string, string | undefined>>; maxRows: number },
): Promise<DeclaredFile> {
  const text = await readText(fileName);
  const dir = path.dirname(path.resolve(fileName));
  return parseDeclaredFile(text, {
    fileName,
    env: options.env,
    maxLocations: options.maxRows,
    readLocationFile: (name, maxRows) => readDeclaredLocationFile(name, dir, maxRows),
  });
}

async function readText(fileName: string): Promise<string> {
  const cannot = (reason: string, what: string) =>
    new EnvdataError('USAGE', `cannot read ${fileName} (${reason}): ${what}`);
  const tooLarge = (reason: string) =>
    cannot(
      reason,
      "a declared file is at most 1 MiB: put long lists of locations in `file:` entries (CSV or JSON, in the declared file's folder)",
    );
  const opened = await openRegularFile(fileName, { maxBytes: MAX_DECLARED_FILE_BYTES });
  if (!opened.ok) {
    if (opened.tooLarge) throw tooLarge(opened.reason);
    throw cannot(
      opened.reason,
      'give the declared file with -f FILE, or write ./envdata.yaml (`envdata export-config` writes one from the warehouse)',
    );
  }
  try {
    let text = '';
    for await (const piece of opened.file.text()) text += piece;
    return text;
  } catch (error) {
    if (error instanceof FileTooLargeError) throw tooLarge(error.message);
    throw cannot(errorCode(error) ?? 'unreadable', 'check the file');
  } finally {
    await opened.file.handle.close();
  }
}
