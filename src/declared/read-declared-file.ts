import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { EnvdataError } from '../errors/envdata-error.js';
import { errorCode } from '../errors/pg-errors.js';
import type { DeclaredFile } from './declared-file.js';
import { parseDeclaredFile } from './parse-declared-file.js';
import { readDeclaredLocationFile } from './read-declared-location-file.js';

/**
 * Reads and checks `envdata.yaml` at `fileName` (`parseDeclaredFile`); its `file:` entries are
 * read relative to its folder, at most `maxRows` rows each (ENVDATA_IMPORT_MAX_ROWS). A file
 * that cannot be read is a `USAGE` error saying which.
 */
export async function readDeclaredFile(
  fileName: string,
  options: { env: Readonly<Record<string, string | undefined>>; maxRows: number },
): Promise<DeclaredFile> {
  let text: string;
  try {
    text = await readFile(fileName, 'utf8');
  } catch (error) {
    throw new EnvdataError(
      'USAGE',
      `cannot read ${fileName} (${errorCode(error) ?? 'unreadable'}): give the declared file with -f FILE, or write ./envdata.yaml (\`envdata export-config\` writes one from the warehouse)`,
      { cause: error },
    );
  }
  const dir = path.dirname(path.resolve(fileName));
  return parseDeclaredFile(text, {
    fileName,
    env: options.env,
    readLocationFile: (name) => readDeclaredLocationFile(name, dir, options.maxRows),
  });
}
