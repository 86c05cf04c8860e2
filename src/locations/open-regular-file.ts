import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { errorCode } from '../errors/pg-errors.js';

/** A regular file opened for reading, with its size when it was opened. */
export interface RegularFile {
  readonly handle: FileHandle;
  readonly size: number;
  /**
   * Its text in pieces, UTF-8 (a byte-order mark kept), from the start: at most `maxBytes`
   * bytes. A file that turns out longer (it grew, or it is one of /proc's, whose size reads 0)
   * stops with `FileTooLargeError`.
   */
  text(): AsyncIterable<string>;
}

/**
 * The file opened, or why not: an errno code (`ENOENT`), what it is instead of a file, or its
 * size past the bound (`tooLarge`).
 */
export type OpenRegularFileResult =
  | { readonly ok: true; readonly file: RegularFile }
  | { readonly ok: false; readonly reason: string; readonly tooLarge?: boolean };

/** Thrown by `RegularFile.text()` when the file has more than its `maxBytes`. */
export class FileTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${formatBytes(maxBytes)}`);
    this.name = 'FileTooLargeError';
  }
}

/**
 * Opens a file an operator or a file names, for reading, only when it is a regular file of at
 * most `maxBytes` bytes: a FIFO, a device (`/dev/zero`), a socket or a directory is refused. The
 * file is opened first and checked through its handle (`fstat`), so what is checked is what is
 * read, and opened non-blocking, so a FIFO with no writer cannot hang the open. With `noFollow`,
 * a symbolic link as the last part of the path is refused (`ELOOP`). The caller closes the handle.
 *
 * @example
 * const opened = await openRegularFile('envdata.yaml', { maxBytes: 1_048_576 });
 * if (!opened.ok) throw new Error(`cannot read envdata.yaml (${opened.reason})`);
 */
export async function openRegularFile(
  fileName: string,
  options: { readonly maxBytes: number; readonly noFollow?: boolean },
): Promise<OpenRegularFileResult> {
  const flags =
    constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0);
  let handle: FileHandle;
  try {
    handle = await open(fileName, flags);
  } catch (error) {
    return { ok: false, reason: errorCode(error) ?? 'unreadable' };
  }
  let stats: Stats;
  try {
    stats = await handle.stat();
  } catch (error) {
    await handle.close();
    return { ok: false, reason: errorCode(error) ?? 'unreadable' };
  }
  if (!stats.isFile()) {
    await handle.close();
    return { ok: false, reason: `not a regular file but ${kindOf(stats)}` };
  }
  if (stats.size > options.maxBytes) {
    await handle.close();
    return { ok: false, reason: `larger than ${formatBytes(options.maxBytes)}`, tooLarge: true };
  }
  const { maxBytes } = options;
  return {
    ok: true,
    file: {
      handle,
      size: stats.size,
      async *text() {
        // `end` is inclusive: one byte more than allowed is read, to know the file is longer.
        const stream = handle.createReadStream({ start: 0, end: maxBytes, autoClose: false });
        const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
        let bytes = 0;
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          bytes += chunk.length;
          if (bytes > maxBytes) throw new FileTooLargeError(maxBytes);
          yield decoder.decode(chunk, { stream: true });
        }
        const rest = decoder.decode();
        if (rest !== '') yield rest;
      },
    },
  };
}

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

/** `1 MiB`, `32 MiB`, `512 KiB`, `100 bytes`. */
function formatBytes(bytes: number): string {
  if (bytes >= 1_048_576 && bytes % 1_048_576 === 0) return `${bytes / 1_048_576} MiB`;
  if (bytes >= 1_024 && bytes % 1_024 === 0) return `${bytes / 1_024} KiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}
