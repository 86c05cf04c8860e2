import { EnvdataError } from '../errors/envdata-error.js';
import type { ServiceClientOptions } from './service-client-options.js';

/**
 * Validates the options of `createServiceClient`, listing every problem at once; never quotes
 * the key. Returns the service's origin and the path prefix kept before every endpoint.
 *
 * @throws EnvdataError `CONFIG_INVALID` when the options are unusable (no key, bad address…).
 */
export function checkServiceClientOptions(options: ServiceClientOptions): {
  origin: string;
  basePath: string;
} {
  const problems: string[] = [];
  const key: unknown = options.apiKey;
  if (typeof key !== 'string' || key.trim() === '') {
    problems.push('the API key is missing: set ENVDATA_API_KEY');
  } else if ([...key].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)) {
    problems.push('the API key contains control characters: check ENVDATA_API_KEY');
  }
  const limits = ['connections', 'connectTimeoutMs', 'requestTimeoutMs', 'maxBodyBytes'] as const;
  for (const name of limits) {
    const value = options[name] ?? 1; // maxBodyBytes is optional
    if (!Number.isSafeInteger(value) || value < 1) {
      problems.push(`${name} must be a positive integer, got ${String(value)}`);
    }
  }
  let origin = '';
  let basePath = '';
  try {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      problems.push(`ENVDATA_BASE_URL must be http or https, got ${url.protocol}`);
    } else if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
      problems.push('ENVDATA_BASE_URL must have no credentials, query or fragment');
    }
    origin = url.origin;
    basePath = url.pathname.replace(/\/+$/, '');
  } catch {
    problems.push(`ENVDATA_BASE_URL is not a URL: ${JSON.stringify(options.baseUrl)}`);
  }
  if (problems.length > 0) {
    throw new EnvdataError(
      'CONFIG_INVALID',
      `cannot create the service client: ${problems.join('; ')}`,
      { details: { problems } },
    );
  }
  return { origin, basePath };
}
