import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Writes a CSV of point rows (`name,lat,lng,country`, distinct names and points) of at least
 * `bytes` bytes, or exactly `rows` rows, row by row: a file of any size without holding it in
 * memory. Returns the number of rows written.
 */
export async function writeCsvFile(
  path: string,
  size: { readonly bytes: number } | { readonly rows: number },
): Promise<number> {
  const out = createWriteStream(path);
  let written = out.bytesWritten;
  let rows = 0;
  const more = () => ('rows' in size ? rows < size.rows : written < size.bytes);
  const header = 'name,lat,lng,country\n';
  out.write(header);
  written += header.length;
  while (more()) {
    const lat = (-80 + ((rows * 0.0137) % 160)).toFixed(4);
    const lng = (-170 + ((rows * 0.0311) % 340)).toFixed(4);
    const line = `Place ${rows},${lat},${lng},\n`;
    written += line.length;
    rows += 1;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return rows;
}
