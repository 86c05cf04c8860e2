import { EnvdataError } from '../errors/envdata-error.js';
import {
  LocationFileParser,
  locationFileFormat,
  type ParsedLocationFile,
} from './parse-location-file.js';

export interface ReadLocationFileOptions {
  /** Most rows read (ENVDATA_IMPORT_MAX_ROWS); one more refuses the file. */
  readonly maxRows: number;
  /**
   * Longest row (CSV) or object (JSON), in characters; a longer one means the file is not a
   * location file, and reading stops there. Default 4,096: a row of five fields of at most 200
   * characters is far shorter.
   */
  readonly maxRowChars?: number;
  /** Whether problems may quote the file's text (default true): `LocationFileLimits`. */
  readonly quoteValues?: boolean;
}

const DEFAULT_MAX_ROW_CHARS = 4_096;

/**
 * Reads a location file from its text in pieces (a file stream), as `parseLocationFile` would
 * read it whole, but holding only the entries, never the file: memory stays bounded whatever its
 * size. The format follows `fileName` (`.csv`, `.json`), else the first character.
 *
 * @throws EnvdataError `VALIDATION_FAILED` as soon as the file has more than `maxRows` rows:
 *   reading stops there and nothing is returned to write.
 * @example
 * const file = await readLocationFile(createReadStream(path, 'utf8'), path, { maxRows: 100_000 });
 */
export async function readLocationFile(
  pieces: AsyncIterable<string>,
  fileName: string,
  options: ReadLocationFileOptions,
): Promise<ParsedLocationFile> {
  const limits = {
    maxRowChars: options.maxRowChars ?? DEFAULT_MAX_ROW_CHARS,
    quoteValues: options.quoteValues ?? true,
  };
  let parser: LocationFileParser | undefined;
  for await (const piece of pieces) {
    parser ??= new LocationFileParser(locationFileFormat(fileName, piece), limits);
    parser.push(piece);
    if (parser.rows > options.maxRows) throw tooManyRows(options.maxRows);
    if (parser.stopped) break;
  }
  parser ??= new LocationFileParser(locationFileFormat(fileName, ''), limits);
  const file = parser.end();
  if (parser.rows > options.maxRows) throw tooManyRows(options.maxRows);
  return file;
}

function tooManyRows(maxRows: number): EnvdataError {
  const n = maxRows.toLocaleString('en-US');
  return new EnvdataError(
    'VALIDATION_FAILED',
    `the file has more than ${n} rows, the most one import reads (ENVDATA_IMPORT_MAX_ROWS=${maxRows}); nothing was written: split it into files of at most ${n} rows, or raise ENVDATA_IMPORT_MAX_ROWS`,
    { details: { maxRows } },
  );
}
