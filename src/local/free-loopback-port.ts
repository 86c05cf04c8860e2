import { once } from 'node:events';
import { createServer } from 'node:net';

/** A TCP port on 127.0.0.1 that nothing listens on now (the system picks it). */
export async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

/** Whether nothing listens on `port` of 127.0.0.1 (a listen there succeeds). */
export async function loopbackPortIsFree(port: number): Promise<boolean> {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    server.close();
    await once(server, 'close');
    return true;
  } catch {
    return false;
  }
}
