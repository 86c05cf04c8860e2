import { fileURLToPath } from 'node:url';

/**
 * The package's bin/envdata.js, for a command that starts envdata in a child process: two
 * folders up from src/cli/ under tsx, three from dist/src/cli/ compiled.
 */
export const ENVDATA_BIN = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../../bin/envdata.js' : '../../../bin/envdata.js',
    import.meta.url,
  ),
);
