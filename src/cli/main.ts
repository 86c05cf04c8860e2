import { processIo } from './cli-io.js';
import { runCli } from './run-cli.js';

const code = await runCli(process.argv.slice(2), processIo());
// Long-running commands return only after closing everything; exit now with their code.
process.exit(code);
