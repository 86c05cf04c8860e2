import { writeFileSync } from 'node:fs';
import { ENV_EXAMPLE_SECTIONS } from '../src/cli/env-example-sections.js';
import { renderEnvExample } from '../tools/env-example/render-env-example.js';

writeFileSync(new URL('../.env.example', import.meta.url), renderEnvExample(ENV_EXAMPLE_SECTIONS));
