import type { LandingFacts } from '../warehouse/fact-table.js';
import type { FactRow, QuarantinedRecord } from '../warehouse/fact-rows.js';
import { upstreamShapeHeldReason } from './set-aside-reason.js';

/**
 * The facts of an answer of a shape not accepted, held back (drift policy `quarantine` or
 * `freeze`): no fact row lands; each hour that would have landed is quarantined once, its
 * rows (by table) kept as the entry's `raw`, with the reason `upstream shape held: DIGEST …`,
 * so the hour is a quarantined hole, not coverage, and the ledger counts it as set aside. What
 * the normalizer quarantined for reasons of its own stays quarantined as it was.
 */
export function holdFacts(facts: LandingFacts, digest: string, policy: string): LandingFacts {
  const byHour = new Map<number, Record<string, FactRow[]>>();
  for (const { table, rows } of facts.tables) {
    for (const row of rows) {
      const hour = row.observedAt.getTime();
      const tables = byHour.get(hour) ?? {};
      (tables[table.name] ??= []).push(row);
      byHour.set(hour, tables);
    }
  }
  const reason = upstreamShapeHeldReason(digest, policy);
  const held: QuarantinedRecord[] = [...byHour]
    .sort(([a], [b]) => a - b)
    .map(([hour, raw], i) => ({ recordIndex: i, raw, reason, hour: new Date(hour) }));
  return {
    ...facts,
    tables: [],
    quarantined: [...facts.quarantined, ...held],
    quarantinedHours: new Set([...facts.quarantinedHours, ...byHour.keys()]),
  };
}
