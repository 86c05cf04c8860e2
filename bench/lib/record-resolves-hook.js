// @ts-check
/** The resolve hook of record-resolves.js; runs on the loader's thread. */
import { appendFileSync } from 'node:fs';

/** @type {string} */
let log;

/** @param {{ log: string }} data */
export function initialize(data) {
  log = data.log;
}

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<{ url: string }>} next
 */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
