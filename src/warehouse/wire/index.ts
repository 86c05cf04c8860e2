/**
 * The wire: how envdata's statements and rows travel to Postgres (docs/architecture.md, "Rows on
 * the wire"). The rest of envdata imports it from here only.
 */
export { named, copyIn, type Statement } from './statements.js';
export { WireDialect, MAX_PREPARED_PER_CONNECTION, type WireOptions } from './wire-driver.js';
export { instants, ArrayLiteral } from './array-literal.js';
export { byteaArray } from './bytea-array.js';
export { stageRows, copyData, encodeCopyTuples } from './encoded-rows.js';
export { factDigest, storedDigest } from './fact-digest.js';
export { CopyIn, type CopyResult } from './copy-in.js';
export { CopyOut } from './copy-out.js';
