import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isEnvdataError } from '../errors/envdata-error.js';
import { errorCode } from '../errors/pg-errors.js';
import { FileTooLargeError, openRegularFile } from '../locations/open-regular-file.js';
import { readLocationFile } from '../locations/read-location-file.js';
import type { DeclaredLocationFile } from './declared-file.js';

/**
 * Largest `file:` entry read: 32 MiB, some 300 bytes a row at 100,000 rows
 * (ENVDATA_IMPORT_MAX_ROWS), where a row of a location file is 30 to 60.
 */
export const MAX_DECLARED_LOCATION_FILE_BYTES = 32 * 1_048_576;

/**
 * Reads a `file:` entry's locations, as `envdata locations import` reads them (CSV or JSON, every
 * bad row reported), at most `maxRows` of them. The entry cannot reach outside the declared
 * file's folder (`baseDir`): its name is relative, and neither `..` nor a symbolic link may lead
 * out of the folder; it must be a regular file of at most `MAX_DECLARED_LOCATION_FILE_BYTES`. The
 * file is planned where secrets are set, so no problem quotes its text: rows are told by line
 * or index. A file that cannot be read is a problem, not a crash.
 */
export async function readDeclaredLocationFile(
  name: string,
  baseDir: string,
  maxRows: number,
): Promise<DeclaredLocationFile> {
  const refused = (problem: string): DeclaredLocationFile => ({
    locations: [],
    problems: [problem],
  });
  if (path.isAbsolute(name)) {
    return refused("an absolute path: name a file in the declared file's folder, relative to it");
  }
  if (!inside(baseDir, path.resolve(baseDir, name))) {
    return refused("leads outside the declared file's folder: name a file in it");
  }
  let dir: string;
  let real: string;
  try {
    dir = await realpath(baseDir);
    real = await realpath(path.resolve(dir, name));
  } catch (error) {
    return refused(`cannot read it (${errorCode(error) ?? 'unreadable'})`);
  }
  if (!inside(dir, real)) {
    return refused("is a link that leads outside the declared file's folder: name a file in it");
  }
  // Opened as resolved, without following a link made meanwhile.
  const opened = await openRegularFile(real, {
    maxBytes: MAX_DECLARED_LOCATION_FILE_BYTES,
    noFollow: true,
  });
  if (!opened.ok) return refused(`cannot read it (${opened.reason})`);
  try {
    const file = await readLocationFile(opened.file.text(), name, { maxRows, quoteValues: false });
    return {
      problems: file.problems,
      locations: file.entries.map((e) =>
        e.kind === 'point'
          ? { ...e, group: undefined, ref: `${name} ${e.ref}` }
          : { ...e, ingestByPlace: false, group: undefined, ref: `${name} ${e.ref}` },
      ),
    };
  } catch (error) {
    // `readLocationFile` refuses a file past `maxRows` so, and nothing else.
    if (isEnvdataError(error) && error.code === 'VALIDATION_FAILED') {
      return { locations: [], problems: [], tooManyRows: true };
    }
    if (error instanceof FileTooLargeError) return refused(`cannot read it (${error.message})`);
    return refused(`cannot read it (${errorCode(error) ?? 'unreadable'})`);
  } finally {
    await opened.file.handle.close();
  }
}

/** Whether `target` is `dir` or under it (both absolute and resolved). */
function inside(dir: string, target: string): boolean {
  const relative = path.relative(dir, target);
  return (
    relative !== '' &&
    relative !== '..' &&
    !relative.startsWith(`..${path.sep}`) &&
    !path.isAbsolute(relative)
  );
}
