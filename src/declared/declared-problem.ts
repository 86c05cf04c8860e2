import { EnvdataError } from '../errors/envdata-error.js';

/** One thing wrong with a declared file, where it is (1-based line and column). */
export interface DeclaredProblem {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/**
 * Every problem of a declared file in one `VALIDATION_FAILED` error, in file order, each as
 * `envdata.yaml:12:7: message`: the CLI prints it and exits 2, nothing written.
 */
export function declaredFileInvalid(
  fileName: string,
  problems: readonly DeclaredProblem[],
): EnvdataError {
  const sorted = [...problems].sort((a, b) => a.line - b.line || a.column - b.column);
  const lines = sorted.map((p) => `  ${fileName}:${p.line}:${p.column}: ${p.message}`);
  return new EnvdataError(
    'VALIDATION_FAILED',
    `${fileName} has ${sorted.length} problem(s), nothing was done:\n${lines.join('\n')}`,
    { details: { fileName, problems: sorted } },
  );
}
