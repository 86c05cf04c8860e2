import { readFileSync } from 'node:fs';

/** The text of a recorded response in `test/service/fixtures/`. */
export function readFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
}
