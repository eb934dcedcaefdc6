// What `rambake` runs: dist/ (tsc's output, one file per module) bundled by esbuild into
// dist/bin/rambake.js, with chunks loaded on demand (a command's definition, and apart from it
// the work its action imports) and the scanner's worker beside them. Node's loader spends about
// half a millisecond on each ES module it resolves, reads and links: `status --no-bitbake`
// loaded some sixty, and bundled 17 (12-06: 17-26 ms less than the same command from
// dist/cli.js, 1.84x `node -e 0` against 2.02x in the startup bench); 27 smaller ones since
// actions import their work, at no cost measured. The packages are bundled in too. execa is
// some 130 modules: importing it from node_modules took 130-180 ms here, bundled 50-78 ms
// (12-06), and every command that runs a process (bitbake -e, mount, the build) loads it.
// commander, which every command loads, came through the CommonJS loader (six files) with
// child_process, which commander only uses for executable subcommands: rambake has none, so
// that module is loaded only if asked for.
// dist/bin/ is two folders below the package root, as dist/<folder>/ is: the modules that
// find templates/ from their own URL find it from a chunk too.

import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const outdir = `${dist}bin`;

// commander's `require('node:child_process')`, from the bundle: the module is loaded the first
// time one of its functions is asked for, which rambake never does.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      args.importer.includes('/node_modules/commander/')
        ? { path: 'child_process', namespace: 'lazy' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents:
        "let real; module.exports = new Proxy({}, { get: (_, key) => (real ??= require('node:child_process'))[key] });",
      loader: 'js',
    }));
  },
};

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
  // A CommonJS module bundled into ES modules calls `require` for Node's own modules. In every
  // chunk, under names no module of rambake declares at its top level.
  banner: {
    js: "import { createRequire as rambakeCreateRequire } from 'node:module'; const require = rambakeCreateRequire(import.meta.url);",
  },
  plugins: [lazyChildProcess],
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
