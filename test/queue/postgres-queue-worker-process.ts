import { QUEUE_NAMES } from '../../jobs/queue-names.js';
import { QueueFactory } from '../../src/queue/queue-factory.js';

// A BullMQ worker on the Postgres backend (the `ingest` queue of DATABASE_URL) as a process of
// its own, so a test can measure its CPU time and signal it. Its lines on standard output:
// `worker created`, the code of its first error (`error 53300`), `done N` per job, `closed`.
const factory = new QueueFactory({
  backend: 'postgres',
  redisUrl: 'redis://127.0.0.1:1',
  databaseUrl: process.env.DATABASE_URL!,
  prefix: 'unused',
  db: () => {
    throw new Error('this worker keeps nothing in the warehouse');
  },
});
let done = 0;
let reported = false;
const worker = factory.worker(
  QUEUE_NAMES.ingest,
  async () => {
    done += 1;
    console.log(`done ${done}`);
    return Promise.resolve();
  },
  { concurrency: 4 },
);
worker.on('error', (error: Error & { code?: unknown }) => {
  if (reported) return;
  reported = true;
  console.log(`error ${String(error.code ?? error.message)}`);
});
process.once('SIGTERM', () => {
  void factory.close().then(() => {
    console.log('closed');
    process.exit(0);
  });
});
console.log('worker created');
