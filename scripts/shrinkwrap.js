// `npm pack` / `npm publish` (prepack): ship package-lock.json as npm-shrinkwrap.json, so that
// `npm ci` in the unpacked package (docs/deploying.md) installs the versions CI tested (and
// package.json `overrides`, which an installed package's own dependencies do not honour
// otherwise) rather than the newest that match. postpack removes it: in the checkout, package-lock.json stays the one lockfile.
import { copyFileSync, rmSync } from 'node:fs';

if (process.argv[2] === '--remove') rmSync('npm-shrinkwrap.json', { force: true });
else copyFileSync('package-lock.json', 'npm-shrinkwrap.json');
