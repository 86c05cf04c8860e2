import { open } from 'node:fs/promises';
import path from 'node:path';
import { coerceError } from '../errors/coerce-error.js';
import { errorCode } from '../errors/pg-errors.js';
import { readLocationFile } from '../locations/read-location-file.js';
import type { DeclaredLocationFile } from './declared-file.js';

/**
 * Reads a `file:` entry's locations, as `envdata locations import` reads them (CSV or JSON, every
 * bad row reported), relative to the declared file's folder. A file that cannot be read, or one
 * past `maxRows` (ENVDATA_IMPORT_MAX_ROWS), is a problem, not a crash.
 */
export async function readDeclaredLocationFile(
  name: string,
  baseDir: string,
  maxRows: number,
): Promise<DeclaredLocationFile> {
  const full = path.resolve(baseDir, name);
  try {
    const handle = await open(full, 'r');
    const file = await readLocationFile(
      handle.createReadStream({ encoding: 'utf8', autoClose: false }),
      full,
      { maxRows },
    ).finally(() => handle.close());
    return {
      problems: file.problems,
      locations: file.entries.map((e) =>
        e.kind === 'point'
          ? { ...e, group: undefined, ref: `${name} ${e.ref}` }
          : { ...e, ingestByPlace: false, group: undefined, ref: `${name} ${e.ref}` },
      ),
    };
  } catch (error) {
    const code = errorCode(error);
    const message =
      code === undefined ? coerceError(error).message : `cannot read ${full} (${code})`;
    return { locations: [], problems: [message] };
  }
}
