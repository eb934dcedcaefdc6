// What `rambake` runs: dist/ (tsc's output, one file per module) bundled by esbuild into
// dist/bin/rambake.js, with one chunk per command loaded on demand and the scanner's worker
// beside them. Node's loader spends about half a millisecond on each ES module it resolves,
// reads and links: `status --no-bitbake` loaded some sixty, and now 17 (12-06: 17-26 ms less
// than the same command from dist/cli.js, 1.84x `node -e 0` against 2.02x in the startup
// bench). Packages stay outside (commander, execa, chokidar resolve from node_modules).
// dist/bin/ is two folders below the package root, as dist/<folder>/ is: the modules that
// find templates/ from their own URL find it from a chunk too.

import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const outdir = `${dist}bin`;
rmSync(outdir, { recursive: true, force: true });
await build({
  // The scanner starts its worker from `./du-worker.js` beside the module that asks.
  entryPoints: { rambake: `${dist}cli.js`, 'du-worker': `${dist}system/du-worker.js` },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
