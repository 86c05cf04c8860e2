import type { Dataset } from '../types.js';

/** Where the service's history starts for each dataset (UTC). */
export const HISTORY_STARTS: Readonly<Record<Dataset, Date>> = {
  pollen: new Date('2016-01-01T00:00:00Z'),
  weather: new Date('1990-01-01T00:00:00Z'),
};
