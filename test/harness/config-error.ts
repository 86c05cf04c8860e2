import { loadConfig } from '../../src/config/load-config.js';
import { isEnvdataError } from '../../src/errors/envdata-error.js';

/** The message `loadConfig(env)` refuses `env` with (CONFIG_INVALID); throws if it accepts it. */
export function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    if (isEnvdataError(error) && error.code === 'CONFIG_INVALID') return error.message;
    throw error;
  }
  throw new Error('expected CONFIG_INVALID');
}
