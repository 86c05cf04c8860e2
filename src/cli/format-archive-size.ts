import type { ArchiveSize } from '../ledger/archive-size.js';

/** `1.4 GiB`, `312.0 MiB`, `8.0 KiB`, `512 bytes`. */
function formatSize(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (bytes < 1024) return `${bytes} bytes`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * The overview's archive line (`envdata status`): `archive: 1840 answer(s), 1838 body(ies),
 * 9.0 MiB on disk; bodies kept 400 days (ENVDATA_ARCHIVE_RETENTION_DAYS)`.
 */
export function formatArchiveSize(size: ArchiveSize, retentionDays: number | undefined): string {
  const retention =
    retentionDays === undefined
      ? 'every body kept (ENVDATA_ARCHIVE_RETENTION_DAYS unset)'
      : `bodies kept ${retentionDays} day(s) after their last answer (ENVDATA_ARCHIVE_RETENTION_DAYS)`;
  return (
    `archive: ${size.answers} answer(s), ${size.bodies} body(ies), ` +
    `${formatSize(size.bytesOnDisk)} on disk; ${retention}`
  );
}
