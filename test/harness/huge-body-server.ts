import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HugeBodyServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** Bytes of body written to sockets so far, all requests together. */
  readonly bytesWritten: () => number;
  readonly requests: () => number;
  close(): Promise<void>;
}

const PIECE = Buffer.from(
  `{"time":1717286400,"Count":{"grass_pollen":12,"tree_pollen":3,"weed_pollen":0},"Risk":{"grass_pollen":"Low","tree_pollen":"Low","weed_pollen":"Low"}},`.repeat(
    512,
  ),
);

/**
 * A service on loopback whose every answer is a 200 with a body of `bodyBytes` (300 MB by
 * default), generated piece by piece as the client reads it (never held in memory): with
 * `declareLength`, announced in `Content-Length`, else sent chunked. Writing stops when the
 * client goes away, so `bytesWritten` shows how much a client let through before giving up.
 */
export async function startHugeBodyServer(
  options: { bodyBytes?: number; declareLength?: boolean } = {},
): Promise<HugeBodyServer> {
  const total = options.bodyBytes ?? 300 * 1024 * 1024;
  let written = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    res.writeHead(200, {
      'content-type': 'application/json',
      ...(options.declareLength && { 'content-length': String(total) }),
    });
    stream(res);
  });
  const stream = (res: ServerResponse) => {
    let sent = 0;
    let open = true;
    res.on('close', () => {
      open = false;
    });
    const pump = () => {
      while (open && sent < total) {
        const piece = PIECE.subarray(0, Math.min(PIECE.length, total - sent));
        sent += piece.length;
        written += piece.length;
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      if (open) res.end();
    };
    res.write('{"message":"success","data":[');
    pump();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytesWritten: () => written,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
