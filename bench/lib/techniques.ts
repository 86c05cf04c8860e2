import type { WriteTechniques } from '../../src/warehouse/write-facts.js';

/**
 * The techniques of the landing path `bench:upsert` can switch off, one by one, to measure what
 * each earns (docs/scaling.md, "What each technique earns").
 */
export const TECHNIQUES = {
  copy: 'binary COPY of rows believed new (else a plain INSERT)',
  digest: 'client digest: groups stored as they are not sent (else every group is upserted)',
  prepare: 'prepared (named) statements',
  groupCommit: 'group commit: a batch of chunks in one transaction (else one each, 8 at once)',
} as const;

export type Technique = keyof typeof TECHNIQUES;
export type Techniques = Readonly<Record<Technique, boolean>>;

export const ALL_ON: Techniques = Object.freeze({
  copy: true,
  digest: true,
  prepare: true,
  groupCommit: true,
});

/** What `FactWriter` takes of `techniques`. */
export function writeTechniques(techniques: Techniques): WriteTechniques {
  return {
    copy: techniques.copy,
    digest: techniques.digest,
  };
}

/** `--off copy,digest`: the techniques with those switched off; throws on an unknown name. */
export function parseOff(list: string): Techniques {
  const off = list.split(',').filter(Boolean);
  const unknown = off.filter((name) => !(name in TECHNIQUES));
  if (unknown.length > 0) {
    throw new Error(
      `--off takes techniques among ${Object.keys(TECHNIQUES).join(', ')}; not ${unknown.join(', ')}`,
    );
  }
  return { ...ALL_ON, ...Object.fromEntries(off.map((name) => [name, false])) };
}
