/** Formatting shared by the benches: numbers, seconds, sizes, verdicts and aligned tables. */

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fmtSec = (s: number): string => s.toFixed(2);
export const fmtMb = (bytes: number): string => `${(bytes / 1_048_576).toFixed(0)} MB`;
export const fmtPct = (share: number): string => `${(share * 100).toFixed(0)} %`;

/** Rows per second; 0 for no time. */
export const rate = (rows: number, seconds: number): number => (seconds > 0 ? rows / seconds : 0);

export const verdict = (ok: boolean): string => (ok ? 'PASS' : '** MISS **');

/** Rows under a header, the first column left-aligned and the others right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Misses of the targets a bench judges, printed loudly at the end. */
export function printMisses(misses: readonly string[]): void {
  if (misses.length === 0) {
    console.log('ALL TARGETS MET');
    return;
  }
  console.log('!'.repeat(72));
  for (const miss of misses) console.log(`!! MISSED TARGET: ${miss}`);
  console.log('!'.repeat(72));
}
