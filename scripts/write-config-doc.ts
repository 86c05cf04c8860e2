import { writeFileSync } from 'node:fs';
import { CONFIG_DOC, renderConfigDoc } from './lib/render-config-doc.js';

/** `npm run docs:config`: writes docs/configuration.md from the environment table. */
writeFileSync(CONFIG_DOC, renderConfigDoc());
