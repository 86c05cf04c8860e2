/**
 * The end of a message about a name envdata does not know: ` — did you mean 'Berlin'?` naming the
 * closest of `candidates` (two or three when they are equally close), or `''` when none is close
 * enough to be a typo. Close means within a couple of edits (a letter missing, extra, changed or
 * two swapped), ignoring case: `--datset` → `--dataset`, `Berln` → `Berlin`, `nme` → `name`.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const typed = name.toLowerCase();
  const allowed = Math.min(2, Math.max(1, Math.floor(typed.length / 3)));
  let best = allowed + 1;
  let closest: string[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === name) continue;
    const distance = editDistance(typed, candidate.toLowerCase());
    if (distance > allowed) continue;
    if (distance < best) [best, closest] = [distance, [candidate]];
    else if (distance === best) closest.push(candidate);
  }
  if (closest.length === 0) return '';
  const quoted = closest.slice(0, 3).map((c) => `'${c}'`);
  const listed =
    quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  return ` — did you mean ${listed}?`;
}

/** Edits (insert, delete, replace, swap two neighbours) turning `a` into `b`. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) rows.push([i, ...Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j += 1) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
