#!/usr/bin/env node
// `npm run demo`: the main job end to end on a temporary copy of the sample build (examples/),
// with the fake BitBake standing in for the real one. Every figure printed comes from a real run:
// the fake writes what BitBake writes, rambake reads it as it would read a real build.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'rambake-demo-'));
cpSync(join(root, 'examples'), work, { recursive: true });
const topdir = join(work, 'build');
const reportFile = join(work, 'rambake-report.html');
const isRoot = process.getuid?.() === 0;
const env = {
  ...process.env,
  PATH: `${join(root, 'test', 'fake-bitbake', 'bin')}:${process.env.PATH}`,
  BUILDDIR: topdir,
  // The fake replays a build's hours in seconds; the sizes are scaled down alike.
  FAKE_BITBAKE_TIME_SCALE: process.env.FAKE_BITBAKE_TIME_SCALE ?? '0.02',
};
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[0m` : s);

/** Runs one command in the build dir; `ok` lists the exit codes that are not a failure. */
function step(title, argv, ok = [0]) {
  const shown = argv[0] === process.execPath ? ['rambake', ...argv.slice(2)] : argv;
  process.stdout.write(`\n${bold(`$ ${shown.join(' ')}`)}   # ${title}\n`);
  const r = spawnSync(argv[0], argv.slice(1), { cwd: topdir, env, stdio: 'inherit' });
  if (!ok.includes(r.status ?? -1)) {
    process.stderr.write(`demo: "${title}" exited with ${r.status ?? r.signal}\n`);
    process.exit(1);
  }
}
const rambake = (title, args, ok) =>
  step(title, [process.execPath, join(root, 'dist', 'cli.js'), ...args], ok);

console.log(`rambake demo: a copy of the sample build in ${work}`);
rambake('what the build is and where its paths live', ['status']);
rambake('what would break or bloat a RAM build (exit 1 only on errors)', ['doctor'], [0, 1]);
rambake(
  'size a tmpfs for core-image-minimal, every number explained',
  ['plan', '--target', 'core-image-minimal'],
  [0, 1],
);
rambake(
  isRoot
    ? 'mount the tmpfs and write the managed block'
    : 'write the managed block; not root, so print the mount commands',
  ['apply', '--target', 'core-image-minimal'],
);
rambake('which giants to build first, one at a time', ['steps', 'core-image-minimal']);
rambake('build in steps under the watch', ['run', '--steps', 'auto', '--', 'bitbake', 'core-image-minimal']);
rambake('a second build, to have something to compare', ['run', '--', 'bitbake', 'core-image-minimal']);
rambake('setscene churn and sstate reuse over both builds', ['churn'], [0, 1]);
rambake('where the space is, per recipe and subfolder', ['space']);
rambake('the report of the last run', ['report', '--html', reportFile]);
rambake('undo apply: cut the block out, unmount the tmpfs', ['revert']);
console.log(`\n${bold('Report:')} ${reportFile}`);
console.log(`Recorded runs: ${join(topdir, 'rambake', 'runs')}`);
console.log(`The demo build is in ${topdir}; delete ${work} when done.`);
