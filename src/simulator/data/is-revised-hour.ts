import type { ReviseOption } from '../simulator-options.js';
import { hashText, unit3 } from './deterministic-hash.js';

const SALT_REVISE = 0x5e715ed;

/**
 * Whether `revise` revises this hour of a site (`SiteKey.seed`): true for about `share` of all
 * hours, decided by a hash of the site, the hour and the option's seed, the same in every process.
 * Whether the answer then gives the revised values depends also on the hour having been answered
 * before (`ReviseOption`).
 */
export function isRevisedHour(siteSeed: number, epochHour: number, revise: ReviseOption): boolean {
  return unit3(siteSeed, epochHour, hashText(revise.seed ?? '') ^ SALT_REVISE) < revise.share;
}
