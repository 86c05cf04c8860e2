import { Readable } from 'node:stream';
import type pg from 'pg';

/** The protocol's message types that a COPY … TO STDOUT sends or that may come amid its data. */
const COPY_DATA = 0x64;
const COPY_DONE = 0x63;
const ERROR_RESPONSE = 0x45;
/** CopyOutResponse, NoticeResponse, ParameterStatus, NotificationResponse: skipped like data. */
const PASSING = new Set([0x48, 0x4e, 0x53, 0x41]);

/** A message's type byte and its length (which counts itself). */
const HEADER_BYTES = 5;

/** The socket state `CopyOut` takes over for the COPY and gives back after it. */
interface Socket {
  listeners(event: 'data'): ((chunk: Buffer) => void)[];
  removeListener(event: string, listener: (...args: never[]) => void): void;
  addListener(event: 'data', listener: (chunk: Buffer) => void): void;
  on(event: 'readable', listener: () => void): void;
  read(): Buffer | null;
  pause(): void;
  resume(): void;
}

/**
 * The data of a `COPY … TO STDOUT` as one byte stream, queued on a `pg.Client` as any query
 * (`client.query(new CopyOut(sql))`). It does what `pg-copy-streams`' `to` does (takes the
 * socket from pg for the COPY, gives it back at CopyDone or at an error, which pg then reports
 * to `handleError`) but strips each row's CopyData header in the socket's own buffer (one
 * `copyWithin` per row, one push per socket read) instead of slicing a Buffer per row and
 * joining them again: receiving costs the process about half the CPU it did
 * (`npm run bench:export`, "COPY received").
 */
export class CopyOut extends Readable {
  /** Rows, from the CommandComplete; null until it came. */
  rowCount: number | null = null;
  private socket: Socket | undefined;
  private pgHandler: ((chunk: Buffer) => void) | undefined;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private headerBytes = 0;
  private type = 0;
  /** Bytes of the current message still to come. */
  private left = 0;
  private wanted = false;
  private forwarding = false;
  private detached = false;
  private readonly onReadable = (): void => this.forward();

  constructor(private readonly statement: string) {
    super({ highWaterMark: 1 << 20 });
  }

  submit(connection: pg.Connection): void {
    const socket = (connection as unknown as { stream: Socket }).stream;
    this.socket = socket;
    this.pgHandler = socket.listeners('data').pop();
    if (this.pgHandler) socket.removeListener('data', this.pgHandler);
    socket.pause();
    socket.on('readable', this.onReadable);
    connection.query(this.statement);
  }

  override _read(): void {
    this.wanted = true;
    this.forward();
  }

  private forward(): void {
    if (this.forwarding || !this.wanted || this.detached || !this.socket) return;
    this.forwarding = true;
    let chunk: Buffer | null;
    while (this.wanted && !this.detached && (chunk = this.socket.read()) !== null) {
      this.parse(chunk);
    }
    this.forwarding = false;
  }

  /** Moves the CopyData payloads of `chunk` to its front and pushes them as one piece. */
  private parse(chunk: Buffer): void {
    const end = chunk.length;
    let at = 0;
    let kept = 0;
    while (at < end) {
      if (this.left > 0) {
        const n = Math.min(this.left, end - at);
        if (this.type === COPY_DATA) {
          if (kept !== at) chunk.copyWithin(kept, at, at + n);
          kept += n;
        }
        at += n;
        this.left -= n;
        continue;
      }
      let type: number;
      let length: number;
      // Where the message starts in `chunk`, or -1 when its header came in an earlier read.
      let headerAt = -1;
      if (this.headerBytes === 0 && end - at >= HEADER_BYTES) {
        headerAt = at;
        type = chunk[at]!;
        length = chunk.readUInt32BE(at + 1);
        at += HEADER_BYTES;
      } else {
        // A header cut by the end of a socket read: gathered across reads.
        while (this.headerBytes < HEADER_BYTES && at < end) {
          this.header[this.headerBytes++] = chunk[at++]!;
        }
        if (this.headerBytes < HEADER_BYTES) break;
        this.headerBytes = 0;
        type = this.header[0]!;
        length = this.header.readUInt32BE(1);
      }
      if (type === COPY_DONE) return this.giveBack(chunk, kept, chunk.subarray(at), true);
      // An error, or what ends copy-out mode otherwise (the protocol allows it): pg reads the
      // message, from its header on.
      if (type !== COPY_DATA && !PASSING.has(type)) {
        const rest =
          headerAt >= 0
            ? chunk.subarray(headerAt)
            : Buffer.concat([this.header, chunk.subarray(at)]);
        return this.giveBack(chunk, kept, rest, type !== ERROR_RESPONSE);
      }
      this.type = type;
      this.left = length - 4;
    }
    if (kept > 0 && !this.push(chunk.subarray(0, kept))) this.wanted = false;
  }

  /**
   * The COPY's data is over (CopyDone, `ended`) or an error came: what pg must read (the
   * CommandComplete and ReadyForQuery, or the ErrorResponse) goes back to it with the socket.
   */
  private giveBack(chunk: Buffer, kept: number, rest: Buffer, ended: boolean): void {
    if (kept > 0) this.push(chunk.subarray(0, kept));
    this.detached = true;
    const socket = this.socket!;
    socket.removeListener('readable', this.onReadable);
    if (this.pgHandler) {
      socket.addListener('data', this.pgHandler);
      this.pgHandler(rest);
    }
    process.nextTick(() => socket.resume());
    if (ended) this.push(null);
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)$/.exec(message.text ?? '');
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {
    // The data ended at CopyDone.
  }

  handleError(error: Error): void {
    this.destroy(error);
  }
}
