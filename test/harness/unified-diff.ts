/**
 * A unified diff of two texts by line (`diff -u` style, 3 lines of context), for failure
 * messages a reader can act on. Longest common subsequence on what remains after the common
 * head and tail: quadratic, fine for files of a few thousand lines.
 */
export function unifiedDiff(
  before: string,
  after: string,
  labels: { readonly before: string; readonly after: string },
  context = 3,
): string {
  const a = before.split('\n');
  const b = after.split('\n');
  const ops = diffLines(a, b);
  const out = [`--- ${labels.before}`, `+++ ${labels.after}`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is at most 2 × context lines further on.
    const start = Math.max(0, i - context);
    let end = i;
    while (end < ops.length) {
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next === ops.length || next - end > 2 * context) break;
      while (next < ops.length && ops[next]!.kind !== ' ') next++;
      end = next;
    }
    end = Math.min(ops.length, end + context);
    const hunk = ops.slice(start, end);
    const first = hunk[0]!;
    const countA = hunk.filter((op) => op.kind !== '+').length;
    const countB = hunk.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${first.lineA + 1},${countA} +${first.lineB + 1},${countB} @@`);
    out.push(...hunk.map((op) => `${op.kind}${op.text}`));
    i = end;
  }
  return out.join('\n');
}

interface Op {
  readonly kind: ' ' | '-' | '+';
  readonly text: string;
  /** Index in `a` of this line, or of the next line of `a` for an insertion. */
  readonly lineA: number;
  readonly lineB: number;
}

function diffLines(a: readonly string[], b: readonly string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  // lcs[i * (m + 1) + j]: length of the LCS of a[head + i…] and b[head + j…] (middle parts).
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[head + i] === b[head + j]
          ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const ops: Op[] = [];
  for (let k = 0; k < head; k++) ops.push({ kind: ' ', text: a[k]!, lineA: k, lineB: k });
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const lineA = head + i;
    const lineB = head + j;
    if (i < n && j < m && a[lineA] === b[lineB]) {
      ops.push({ kind: ' ', text: a[lineA]!, lineA, lineB });
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) {
      ops.push({ kind: '-', text: a[lineA]!, lineA, lineB });
      i++;
    } else {
      ops.push({ kind: '+', text: b[lineB]!, lineA, lineB });
      j++;
    }
  }
  for (let k = 0; k < tail; k++) {
    const lineA = a.length - tail + k;
    const lineB = b.length - tail + k;
    ops.push({ kind: ' ', text: a[lineA]!, lineA, lineB });
  }
  return ops;
}
