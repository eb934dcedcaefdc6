#!/usr/bin/env node
// `npm run demo`: the main job end to end on a temporary copy of the sample build (examples/),
// with the fake BitBake standing in for the real one. Every figure printed comes from a real run.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'rambake-demo-'));
cpSync(join(root, 'examples'), work, { recursive: true });
const topdir = join(work, 'build');
const env = {
  ...process.env,
  PATH: `${join(root, 'test', 'fake-bitbake', 'bin')}:${process.env.PATH}`,
  BUILDDIR: topdir,
  FAKE_BITBAKE_TIME_SCALE: process.env.FAKE_BITBAKE_TIME_SCALE ?? '0.02',
};

function step(title, cmd, args, { allowFail = false } = {}) {
  process.stdout.write(
    `\n\x1b[1m$ ${[cmd === process.execPath ? 'rambake' : cmd, ...args].join(' ')}\x1b[0m   # ${title}\n`,
  );
  const r = spawnSync(cmd, args, { cwd: topdir, env, stdio: 'inherit' });
  if (r.status !== 0 && !allowFail) {
    process.stderr.write(`demo: "${title}" exited with ${r.status}\n`);
    process.exit(1);
  }
  return r.status;
}
const rambake = (title, ...args) => step(title, process.execPath, [join(root, 'dist', 'cli.js'), ...args]);

console.log(`rambake demo: a copy of the sample build in ${work}`);
rambake('what the build is and where its paths live', 'status');
// doctor exits 1 when it finds errors; the sample has only warnings.
step('what would break or bloat a RAM build', process.execPath, [join(root, 'dist', 'cli.js'), 'doctor'], {
  allowFail: true,
});
step('a build (the fake BitBake writes what BitBake writes)', 'bitbake', ['core-image-minimal']);
rambake("the same status, now read from the build's own event log", 'status');
console.log(`\nThe demo build is in ${topdir}; delete ${work} when done.`);
