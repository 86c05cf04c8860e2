/**
 * A `Map` that forgets everything once it holds `capacity` entries: enough to keep per-location
 * constants of a working set without growing without bound under a crawl of many locations.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get(key: K, compute: (key: K) => V): V {
    const hit = this.#entries.get(key);
    if (hit !== undefined) return hit;
    if (this.#entries.size >= this.capacity) this.#entries.clear();
    const value = compute(key);
    this.#entries.set(key, value);
    return value;
  }
}
