import type { Kysely } from 'kysely';
import { datasetDefinition } from '../../src/datasets/registry.js';
import { ShapeRecorder } from '../../src/ingest/shape-recorder.js';
import type { Location } from '../../src/locations/location.js';
import type { Dataset } from '../../src/types.js';
import type { Database } from '../../src/warehouse/schema.js';
import { historyBody } from './history-payloads.js';

/** What taking and recording the shape of one answer costs (`ShapeRecorder.observe`). */
export interface ShapeCost {
  readonly answers: number;
  /** This process's CPU per answer, µs: the shape, its digest, the counts and their flushes. */
  readonly cpuMicros: number;
}

const H = 3_600_000;

/**
 * Times `ShapeRecorder.observe` over `answers` history answers of both datasets (48-hour
 * windows at `locations`, rendered by the simulator's own code and parsed as the client does),
 * on the bench database: the first answer of each shape records it, the rest are counted in
 * memory and flushed every `flushMs` as in a worker (here every 50 ms, so flushes are in it).
 */
export async function measureShapeCost(
  db: Kysely<Database>,
  locations: readonly Location[],
  answers = 4_000,
): Promise<ShapeCost> {
  const datasets: Dataset[] = ['weather', 'pollen'];
  const payloads = datasets.flatMap((dataset) =>
    locations.slice(0, 4).flatMap((location, l) =>
      [0, 1].map((k) => {
        const from = new Date(Date.UTC(2024, 0, 2) + (l * 2 + k) * 48 * H);
        const window = { from, to: new Date(from.getTime() + 48 * H) };
        const definition = datasetDefinition(dataset);
        const payload = definition.parseBody(historyBody(dataset, location, window));
        return { dataset, payload, verdicts: definition.shareUnitOf?.(payload) };
      }),
    ),
  );
  const recorder = new ShapeRecorder(db, { flushMs: 50 });
  // Warm: the baselines recorded, the code compiled.
  for (const p of payloads) await recorder.observe({ ...p, source: 'history', chunkId: 1 });
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < answers; i++) {
    const p = payloads[i % payloads.length]!;
    await recorder.observe({ ...p, source: 'history', chunkId: 1 });
  }
  await recorder.flush();
  const cpu = process.cpuUsage(cpu0);
  return { answers, cpuMicros: (cpu.user + cpu.system) / answers };
}
