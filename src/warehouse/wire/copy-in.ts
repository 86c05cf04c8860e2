import pg from 'pg';

/** The protocol's CopyData message type. */
const COPY_DATA = 0x64;

/** What a COPY answers; Kysely reads `rows` and this connection `rowCount`. */
export interface CopyResult {
  readonly command: 'COPY';
  readonly rowCount: number | null;
  readonly rows: readonly never[];
}

/**
 * A `COPY … FROM STDIN` whose whole input is at hand, sent with its data in one write (no round
 * trip for the CopyInResponse), queued as any `Query`.
 */
export class CopyIn extends pg.Query {
  readonly done: Promise<CopyResult>;
  private resolve!: (result: CopyResult) => void;
  private reject!: (error: unknown) => void;
  private rowCount: number | null = null;

  constructor(
    private readonly statement: string,
    private readonly data: readonly Buffer[],
  ) {
    super(statement);
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  override submit = (connection: pg.Connection): void => {
    const { stream } = connection as unknown as {
      readonly stream: NodeJS.WritableStream & { cork(): void; uncork(): void };
    };
    stream.cork();
    connection.query(this.statement);
    for (const piece of this.data) {
      const header = Buffer.allocUnsafe(5);
      header[0] = COPY_DATA;
      header.writeUInt32BE(piece.length + 4, 1);
      stream.write(header);
      stream.write(piece);
    }
    (connection as unknown as { endCopyFrom(): void }).endCopyFrom();
    stream.uncork();
  };

  handleCopyInResponse(): void {
    // The data went out with the statement.
  }

  handleCommandComplete(message: { text?: string }): void {
    const match = /^COPY (\d+)$/.exec(message.text ?? '');
    if (match) this.rowCount = Number(match[1]);
  }

  handleReadyForQuery(): void {
    this.resolve({ command: 'COPY', rowCount: this.rowCount, rows: [] });
  }

  handleError(error: unknown): void {
    this.reject(error);
  }
}
