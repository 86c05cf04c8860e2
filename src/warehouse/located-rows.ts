/** Rows of one location, as the writer groups them. */
export interface LocatedRows<Row> {
  readonly locationId: number;
  readonly rows: readonly Row[];
  /**
   * The answer (`envdata.answer`) the rows came from, which each row written keeps as its
   * source (`answer_id`); `null` for rows of no kept answer.
   */
  readonly answerId?: number | null | undefined;
  /** The same rows as the table staged them (`stageLanding`), if it did. */
  readonly staged?: StagedRows | undefined;
}

/**
 * One location's rows made ready as its landing is staged (`stageLanding`): the tuples of
 * a binary COPY, for hours the ledger never saw, and their digest (`factDigest`), for hours it
 * did; each `undefined` when a value could not be encoded exactly.
 */
export interface StagedRows {
  readonly copyTuples: Buffer | undefined;
  readonly digest: Buffer | undefined;
}
