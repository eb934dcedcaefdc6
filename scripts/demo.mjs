#!/usr/bin/env node
// `npm run demo`: the founding story end to end on a temporary copy of the sample build
// (examples/), with the fake BitBake's sato-like build (rm_work on) standing in for
// core-image-sato at 1/100 of its sizes: record one build, plan from it, find the giants,
// mount a tmpfs too small for the build in one go, watch the one-go build fail, build in steps
// under the same size, and report both side by side. Every figure printed comes from a real
// run: the fake writes what BitBake writes, rambake reads it as it would read a real build.
// As root the tmpfs is real; otherwise apply prints the mount commands and the builds run on
// disk (nothing runs out of room there, so the one-go build is only shown).

import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'rambake-demo-'));
cpSync(join(root, 'examples'), work, { recursive: true });
const topdir = join(work, 'build');
const ram = join(topdir, 'ram');
const reportFile = join(work, 'rambake-report.html');
const isRoot = process.getuid?.() === 0;
const TARGET = 'core-image-sato';
const MiB = 1024 * 1024;
const env = {
  ...process.env,
  PATH: `${join(root, 'test', 'fake-bitbake', 'bin')}:${process.env.PATH}`,
  BUILDDIR: topdir,
  FAKE_BITBAKE_SCENARIO: 'sato-like',
  // The fake replays a build's hours in seconds; the sizes are scaled down alike. Each task lasts
  // at least its scaled duration, so the pace adds to the fake's own work: 0.0005 keeps the
  // demo near a minute (59 s on 2 cores, where 0.001 took 79 s, 12-07).
  FAKE_BITBAKE_TIME_SCALE: process.env.FAKE_BITBAKE_TIME_SCALE ?? '0.0005',
};
const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${s}\x1b[0m` : s);
const started = Date.now();

/**
 * Runs one command in the build dir; `ok` lists the exit codes that are not a failure. With
 * `quiet`, BitBake's own output (stdout) is kept to its last lines.
 */
function step(title, argv, { ok = [0], quiet = false } = {}) {
  const shown = argv[0] === process.execPath ? ['rambake', ...argv.slice(2)] : argv;
  process.stdout.write(`\n${bold(`$ ${shown.join(' ')}`)}   # ${title}\n`);
  const r = spawnSync(argv[0], argv.slice(1), {
    cwd: topdir,
    env,
    stdio: quiet ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
    maxBuffer: 256 * MiB,
  });
  if (quiet) {
    const lines = (r.stdout ?? '').trimEnd().split('\n');
    const kept = lines.filter((l) => !/^(NOTE: |\d\d:\d\d:\d\d )/.test(l)).slice(-14);
    process.stdout.write(`  … ${lines.length - kept.length} lines of BitBake and watch output …\n`);
    process.stdout.write(`${kept.join('\n')}\n`);
  }
  if (!ok.includes(r.status ?? -1)) {
    process.stderr.write(`demo: "${title}" exited with ${r.status ?? r.signal}\n`);
    process.exit(1);
  }
  return r;
}
const rambake = (title, args, opts) =>
  step(title, [process.execPath, join(root, 'dist', 'bin', 'rambake.js'), ...args], opts);
const note = (text) => process.stdout.write(`\n${bold('#')} ${text}\n`);

/** From scratch, as a first build: no sstate objects, an empty TMPDIR (the mount stays). */
function fromScratch() {
  rmSync(join(work, 'sstate-cache'), { recursive: true, force: true });
  for (const name of existsSync(ram) ? readdirSync(ram) : [])
    rmSync(join(ram, name), { recursive: true, force: true });
  note(`from scratch: rm -rf ${join(work, 'sstate-cache')} ${ram}/*`);
}

/**
 * The newest recorded run's peak: on a tmpfs its fill (the summary), on a disk shared with
 * everything else the growth of the file system during the run (as plan measures it).
 */
function lastPeak() {
  const runs = join(topdir, 'rambake', 'runs');
  const newest = readdirSync(runs).sort().at(-1);
  const lines = readFileSync(join(runs, newest), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  const header = lines.find((l) => l.type === 'header');
  if (header?.tmpfs?.fsType === 'tmpfs') return lines.findLast((l) => l.type === 'summary').peak.bytes;
  const used = lines.filter((l) => l.type === 'sample').map((l) => l.fs.usedBytes);
  return Math.max(MiB, Math.max(...used) - (used[0] ?? 0));
}

console.log(`rambake demo: a copy of the sample build in ${work}`);
console.log(
  'The fake BitBake builds core-image-sato (about 300 recipes, webkitgtk the giant) at 1/100 of its sizes.',
);
appendFileSync(join(topdir, 'conf', 'local.conf'), 'INHERIT += "rm_work"\n');
note('rm_work on, as for any RAM build: INHERIT += "rm_work" added to conf/local.conf');
rambake('what the build is and where its paths live', ['status', '--no-bitbake']);
rambake('what would break or bloat a RAM build (exit 1 only on errors)', ['doctor'], { ok: [0, 1] });

note('1. Measure one build, in a tmpfs big enough for it.');
rambake(
  isRoot
    ? 'mount a 1 GiB tmpfs and write the managed block'
    : 'write the managed block; not root, so print the mount commands (TMPDIR stays on disk)',
  ['apply', '--path', ram, '--size', '1g'],
);
rambake('one build, recorded', ['run', '--interval', '0.02', '--', 'bitbake', TARGET], { quiet: true });
const oneGoPeak = lastPeak();
rambake('undo apply before sizing again', ['revert']);

note('2. Plan from the measurement, and find the giants.');
rambake('size a tmpfs from the recorded build', ['plan', '--target', TARGET], { ok: [0, 1] });
rambake('which giants to build first, one at a time', ['steps', TARGET]);

note(
  `3. A tmpfs smaller than the one-go peak (${(oneGoPeak / MiB).toFixed(1)} MiB): 93 % of it, as on a machine short of RAM.`,
);
const size = `${Math.floor((oneGoPeak * 0.93) / MiB)}m`;
rambake(isRoot ? `mount a ${size} tmpfs` : `a ${size} tmpfs (printed, not mounted)`, [
  'apply',
  '--path',
  ram,
  '--size',
  size,
]);
fromScratch();
rambake(
  'in one go: stopped before BitBake starts (the measured build left its deploy folder)',
  ['run', '--', 'bitbake', TARGET],
  { ok: [1] },
);
if (isRoot) {
  rambake(
    'in one go, the old deploy folder moved aside: the tmpfs fills and the build fails',
    ['run', '--interval', '0.02', '--move-old-deploy', '--', 'bitbake', TARGET],
    { ok: [1], quiet: true },
  );
  fromScratch();
} else {
  note(
    `not root: no tmpfs, so here the one-go build would not run out of room. As root it fails: rambake run --move-old-deploy -- bitbake ${TARGET}`,
  );
}

note('4. The same build in steps, in the same tmpfs.');
rambake(
  'build the giant alone, then the rest',
  ['run', '--interval', '0.02', '--steps', 'auto', '--move-old-deploy', '--', 'bitbake', TARGET],
  { quiet: true },
);
rambake('setscene churn and sstate reuse', ['churn'], { ok: [0, 1] });
rambake('the report: both runs side by side, every step', ['report', '--html', reportFile]);
rambake('undo apply: cut the block out, unmount the tmpfs', ['revert']);
console.log(`\n${bold('Report:')} ${reportFile}`);
console.log(`Recorded runs: ${join(topdir, 'rambake', 'runs')}`);
console.log(`The demo build is in ${topdir}; delete ${work} when done.`);
console.log(`Demo time: ${((Date.now() - started) / 1000).toFixed(0)} s`);
