import { keepHourlyRecords, type RecordValues } from '../../normalize/keep-hourly-records.js';
import type { PollenPayload, PollenRecord } from '../../service/models.js';
import { POLLEN_TYPES, type Window } from '../../types.js';
import type { NormalizedPollen, PollenSpeciesRow, PollenTypeRow } from './pollen-rows.js';

const STAMPED_AT_FETCH = { stampedAtFetch: true } as const;

/** The name the bare `Species.Others` count is stored under (category `other`). */
export const OTHERS_SPECIES = 'Others';

/**
 * Pollen payload → fact rows. Counts and species are kept exactly as sent (the type count is
 * never derived from the species); an absent species writes no row; records outside `window`
 * are dropped; repeated hours collapse when
 * identical and are quarantined when they disagree; invalid records go to quarantine with
 * the reason while the rest land.
 */
export function normalizePollen(payload: PollenPayload, window?: Window): NormalizedPollen {
  const { byHour, ...stats } = keepHourlyRecords(payload, window, validate, valuesOf);
  const typeRows: PollenTypeRow[] = [];
  const speciesRows: PollenSpeciesRow[] = [];
  for (const [hour, record] of byHour) {
    const observedAt = new Date(hour);
    // A latest reading stamped at fetch says so on each of its rows (nothing on history rows).
    const stamped = record.stampedAtFetch && STAMPED_AT_FETCH;
    for (const pollenType of POLLEN_TYPES) {
      const count = record.counts[pollenType];
      const riskLevel = record.risks[pollenType];
      if (count === undefined && riskLevel === undefined) continue;
      typeRows.push({
        observedAt,
        pollenType,
        count: count ?? null,
        riskLevel: riskLevel ?? null,
        ...stamped,
      });
    }
    for (const s of record.species ?? []) {
      speciesRows.push({
        observedAt,
        category: s.category,
        species: s.name,
        count: s.count,
        riskLevel: record.speciesRisk?.[s.name] ?? null,
        ...stamped,
      });
    }
    if (record.othersCount !== undefined) {
      speciesRows.push({
        observedAt,
        category: 'other',
        species: OTHERS_SPECIES,
        count: record.othersCount,
        riskLevel: record.speciesRisk?.[OTHERS_SPECIES] ?? null,
        ...stamped,
      });
    }
  }
  return { typeRows, speciesRows, ...stats };
}

/** The values a pollen record lands as: two copies of an hour must agree on all of them. */
function valuesOf(record: PollenRecord): RecordValues {
  const values: Record<string, string | number | null | undefined> = {};
  for (const pollenType of POLLEN_TYPES) {
    values[`Count.${pollenType}_pollen`] = record.counts[pollenType];
    values[`Risk.${pollenType}_pollen`] = record.risks[pollenType];
  }
  for (const s of record.species ?? []) {
    values[`Species.${s.category}.${s.name}`] = s.count;
    values[`SpeciesRisk.${s.name}`] = record.speciesRisk?.[s.name];
  }
  values['Species.Others'] = record.othersCount;
  return values;
}

function validate(record: PollenRecord): string | undefined {
  for (const pollenType of POLLEN_TYPES) {
    const count = record.counts[pollenType];
    if (count !== undefined && !isCount(count)) {
      return `Count.${pollenType}_pollen is ${count}, not a whole number >= 0`;
    }
  }
  for (const s of record.species ?? []) {
    if (!isCount(s.count))
      return `species "${s.name}" count is ${s.count}, not a whole number >= 0`;
  }
  if (record.othersCount !== undefined && !isCount(record.othersCount)) {
    return `Species.Others is ${record.othersCount}, not a whole number >= 0`;
  }
  const names = new Set<string>();
  for (const s of record.species ?? []) {
    const key = `${s.category}/${s.name}`;
    if (names.has(key)) return `species "${s.name}" appears twice in ${s.category}`;
    names.add(key);
  }
  return undefined;
}

function isCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 2_147_483_647;
}
