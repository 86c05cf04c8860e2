import { EnvdataError } from '../errors/envdata-error.js';
import type { Config } from './config.js';

/**
 * The API key of the service, which whatever calls the service needs (workers, geocoding).
 * Throws `CONFIG_INVALID` (exit 2: nothing was done) when ENVDATA_API_KEY is not set.
 */
export function requireApiKey(config: Config): string {
  const apiKey = config.service.apiKey;
  if (!apiKey) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      'ENVDATA_API_KEY is not set: this command calls the service and needs your API key (the simulator accepts envdata-demo-key)',
    );
  }
  return apiKey;
}
