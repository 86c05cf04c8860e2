/** Capitals the simulator geocodes without ambiguity, for place rows. */
export const PLACES = [
  'Berlin',
  'Paris',
  'London',
  'Madrid',
  'Rome',
  'Tokyo',
  'Sydney',
  'Vienna',
  'Lisbon',
  'Oslo',
] as const;

/** `count` point rows on a diagonal across the Atlantic and Africa, distinct names and points. */
export function gridPoints(count: number): { name: string; lat: number; lng: number }[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `Grid ${i + 1}`,
    lat: -40 + i * 1.5,
    lng: -20 + i * 0.75,
  }));
}

/** A CSV of `points` grid rows and the `PLACES`, mixed: `name,lat,lng,country,place`. */
export function mixedCsv(points: number): string {
  const lines = ['name,lat,lng,country,place'];
  const grid = gridPoints(points);
  grid.forEach((p, i) => {
    lines.push(`${p.name},${p.lat},${p.lng},,`);
    const place = PLACES[i];
    if (place !== undefined) lines.push(`,,,,${place}`);
  });
  return `${lines.join('\n')}\n`;
}
