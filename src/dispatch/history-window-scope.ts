import type { WindowScope } from '../windows/learned-window.js';
import type { Config } from '../config/config.js';
import { keyFingerprint } from '../config/key-fingerprint.js';

/**
 * Where this configuration's learned history window applies: its API key's fingerprint and its
 * base address. `undefined` without ENVDATA_API_KEY (a dry run may plan without one).
 */
export function historyWindowScope(config: Config): WindowScope | undefined {
  const key = config.service.apiKey;
  return key === undefined
    ? undefined
    : { keyFingerprint: keyFingerprint(key), baseUrl: config.service.baseUrl };
}
