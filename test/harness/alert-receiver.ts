import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { watchUntil } from './watch-until.js';

/** First and last port of the range this suite's receivers listen on (127.0.0.1). */
const PORTS = { first: 46_400, last: 46_499 } as const;

/** What the receiver does with the next requests. */
export type ReceiverMode =
  | { readonly kind: 'ok' }
  | { readonly kind: 'status'; readonly status: number }
  /** Answers 200 after `delayMs`: past the dispatcher's timeout, it never hears it. */
  | { readonly kind: 'slow'; readonly delayMs: number };

export interface ReceivedAlert {
  readonly at: number;
  readonly body: Record<string, unknown>;
  /** The request's headers (a lineage receiver checks `authorization`). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as received, to grep for secrets. */
  readonly text: string;
  /** The status answered (0: the receiver was torn down first). */
  status: number;
}

export interface AlertReceiver {
  /** `http://127.0.0.1:PORT/hook/SECRET`: the path stands for a Slack webhook's secret. */
  readonly url: string;
  /** Every request received, in order, whatever was answered. */
  readonly received: ReceivedAlert[];
  /** The most requests it held open at once. */
  readonly maxInFlight: () => number;
  setMode(mode: ReceiverMode): void;
  /** Stops listening: connections are refused until `open()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  open(): Promise<void>;
  close(): Promise<void>;
  /** Resolves once `count` requests matching `match` were received. */
  waitFor(
    match: (alert: ReceivedAlert) => boolean,
    count?: number,
    timeoutMs?: number,
  ): Promise<ReceivedAlert[]>;
}

/**
 * A webhook receiver on loopback, as Slack's or a team's own would be: records every POST
 * (JSON) and answers as told (`setMode`). Listens on a port of 46400-46499.
 */
export async function startAlertReceiver(
  secretPath = 'hook/T000/B000/s3cr3t',
): Promise<AlertReceiver> {
  const received: ReceivedAlert[] = [];
  let mode: ReceiverMode = { kind: 'ok' };
  let inFlight = 0;
  let maxInFlight = 0;
  const watchers = new Set<() => void>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    // In flight until answered, or until the client gave up (its timeout closed the socket).
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      inFlight--;
    };
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', settle);
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = { unparsed: text };
      }
      const alert: ReceivedAlert = { at: Date.now(), body, headers: req.headers, text, status: 0 };
      received.push(alert);
      for (const w of [...watchers]) w();
      const answer = (status: number) => {
        alert.status = status;
        // Watchers matching on the status answered look again.
        for (const w of [...watchers]) w();
        settle();
        if (!res.destroyed) res.writeHead(status).end();
      };
      if (mode.kind === 'ok') answer(200);
      else if (mode.kind === 'status') answer(mode.status);
      else setTimeout(() => answer(200), mode.delayMs).unref();
    });
  };
  let server: Server = createServer(handle);
  const port = await listenInRange(server);
  const url = `http://127.0.0.1:${port}/${secretPath}`;
  return {
    url,
    received,
    maxInFlight: () => maxInFlight,
    setMode(next) {
      mode = next;
    },
    async down() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    async open() {
      server = createServer(handle);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
    },
    async close() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    waitFor(match, count = 1, timeoutMs = 60_000) {
      return watchUntil(
        watchers,
        () => {
          const hits = received.filter(match);
          return hits.length >= count ? hits : undefined;
        },
        timeoutMs,
        () =>
          new Error(
            `the receiver did not get ${count} matching alert(s) in time; got ${received.length}: ${received
              .map((r) => `${String(r.body.event)}#${String(r.body.id)}→${r.status}`)
              .join(' ')
              .slice(-600)}`,
          ),
      );
    },
  };
}

/** Listens on the first free port of `PORTS` (several files may hold one each). */
async function listenInRange(server: Server): Promise<number> {
  const start = PORTS.first + Math.floor(Math.random() * (PORTS.last - PORTS.first + 1));
  for (let i = 0; i <= PORTS.last - PORTS.first; i++) {
    const port = PORTS.first + ((start - PORTS.first + i) % (PORTS.last - PORTS.first + 1));
    const ok = await new Promise<boolean>((resolve) => {
      const onError = () => resolve(false);
      server.once('error', onError);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', onError);
        resolve(true);
      });
    });
    if (ok) return port;
  }
  throw new Error(`no free port in ${PORTS.first}-${PORTS.last} for the alert receiver`);
}

/** Median and worst of `values` (milliseconds), for the delivery latency the tests print. */
export function latencySummary(values: readonly number[]): { median: number; worst: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median =
    sorted.length === 0
      ? NaN
      : sorted.length % 2 === 1
        ? sorted[mid]!
        : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, worst: sorted.at(-1) ?? NaN };
}
