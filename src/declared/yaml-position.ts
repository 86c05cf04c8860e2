import { isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';

/** A path into a YAML document's value: keys and indexes. */
export type YamlPath = readonly PropertyKey[];

/**
 * Where the value at `path` starts (1-based line and column), or with `key` where that key of
 * the map at `path` is written. A path that goes further than the document (a missing key) stops
 * at the deepest node there is: the map that lacks it.
 */
export function yamlPosition(
  doc: Document,
  lines: LineCounter,
  path: YamlPath,
  key?: string,
): { line: number; column: number } {
  let node: Node | null | undefined = doc.contents;
  let found = node;
  const segments = key === undefined ? path : [...path, key];
  for (const [index, segment] of segments.entries()) {
    const last = key !== undefined && index === segments.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (!pair) break;
      node = (last ? pair.key : pair.value) as Node | null;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment] as Node | undefined;
    } else break;
    if (node) found = node;
  }
  const offset = found?.range?.[0] ?? 0;
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}
