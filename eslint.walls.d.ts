/** The types of eslint.walls.js, for the tests that read its layers (test/architecture). */

/** The parts of `src/`, one layer per entry, lowest first. */
export declare const LAYERS: readonly (readonly string[])[];

/** The index of `part`'s layer. */
export declare function layerOf(part: string, layers?: readonly (readonly string[])[]): number;

/** Why `part` may not import `other`. */
export declare function wallMessage(
  part: string,
  other: string,
  layers?: readonly (readonly string[])[],
): string;

/** One ESLint config object per part: what it may not import. */
export declare function wallConfigs(layers?: readonly (readonly string[])[]): {
  readonly files: readonly string[];
  readonly rules: { readonly 'no-restricted-imports': readonly unknown[] };
}[];
