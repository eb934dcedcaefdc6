// The founding story at small scale on the real BitBake 2.15.2: tiny recipes where one is a
// giant by size, a tmpfs that the build in one go overfills and the build in steps fits.
//
// Sizes live in the build trees (${B}), as a real giant's object files do, so rm_work frees
// them: tiny-giant's do_compile writes GIANT MiB, tiny-slow's SLOW MiB. In one go the two
// trees must be in the tmpfs at once, which BitBake's scheduler alone does not promise on a
// loaded machine: so in the one-go builds (the test marks them with a file in TOPDIR) each
// do_compile, once written, waits (at most HOLD seconds) for the other's mark in TMPDIR, or for
// its failure mark (the tmpfs full). In steps each is built alone before the rest: no wait.
//
// The story as a user runs it: one build recorded under `rambake run` in a big tmpfs → `plan`
// (measured) → `steps` → `apply` a tmpfs between the two peaks
// → the one-go build fails with the tmpfs full (ENOSPC or the disk monitor) and rambake says
// so → emptied, `rambake run --steps auto` (as the build user, as a user runs it) succeeds with
// its peak under the size → `report` shows both side by side. sstate is removed before each
// of the last two builds, so both run every task.

import { chownSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { CLI, runRambake } from '../helpers/exec.js';
import {
  applyRam,
  asBuildUser,
  BUILD_USER,
  describeRealBuild,
  ensureBuildUser,
  makeTinyBuild,
  mountTmpfs,
  rambakeEnv,
  runAsBuildUser,
  type TinyBuild,
  waitForBitbakeServer,
} from './harness.js';

const MiB = 1024 * 1024;
const GIANT = 64;
const SLOW = 40;
const HOLD = 90;
/** In TOPDIR while the test builds both recipes in one go: only then does one wait for the other. */
const TOGETHER = 'story-together';

const LICENSE = `LICENSE = "MIT"
LIC_FILES_CHKSUM = "file://\${COMMON_LICENSE_DIR}/MIT;md5=0835ade698e0bcf8506ecda2f7b4f302"
inherit allarch
do_fetch[noexec] = "1"
do_unpack[noexec] = "1"
do_patch[noexec] = "1"
do_configure[noexec] = "1"
`;

/** A recipe whose build tree holds `mb` MiB until `other` wrote its own; it installs one small file. */
function bulkyRecipe(summary: string, mb: number, other: string): string {
  return `SUMMARY = "${summary}"
${LICENSE}
do_compile() {
    marks=\${TMPDIR}/story-marks
    mkdir -p $marks
    dd if=/dev/zero of=\${B}/objects.bin bs=1M count=${mb} status=none || { touch $marks/\${BPN}.failed; exit 1; }
    touch $marks/\${BPN}
    n=0
    while [ -e \${TOPDIR}/${TOGETHER} ] && [ ! -e $marks/${other} ] && [ ! -e $marks/${other}.failed ] && [ $n -lt ${HOLD} ]; do
        sleep 1
        n=$(expr $n + 1)
    done
}
do_install() {
    install -d \${D}\${datadir}/\${BPN}
    echo built > \${D}\${datadir}/\${BPN}/done.txt
}
`;
}

const RECIPES = {
  // The layer's own tiny-giant, its size moved from the package to the build tree.
  'recipes-tiny/tiny-giant/tiny-giant_1.0.bb': bulkyRecipe('The giant: a big build tree', GIANT, 'tiny-slow'),
  'recipes-tiny/tiny-slow/tiny-slow_1.0.bb': bulkyRecipe('A mid-size build tree', SLOW, 'tiny-giant'),
  'recipes-tiny/tiny-target/tiny-target_1.0.bb': `SUMMARY = "Everything of the story's layer"
${LICENSE}
do_compile[noexec] = "1"
DEPENDS = "tiny-tool-native"
RDEPENDS:\${PN} = "tiny-hello tiny-giant tiny-slow os-release"
ALLOW_EMPTY:\${PN} = "1"
do_install() {
    :
}
`,
};

/** The summary JSON `rambake run --json` prints last. */
function summaryOf(stdout: string): {
  exitCode: number;
  peak: { bytes: number };
  workdirPeaks: Record<string, number>;
  steps: { command: string[]; exitCode: number; peak?: { bytes: number } }[];
} {
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}');
}

/** `rambake run --json [flags] -- runuser -u <build user> -- bitbake <target>` as root. */
async function runAsRoot(build: TinyBuild, flags: string[]) {
  const r = await runRambake(
    ['-B', build.topdir, 'run', '--json', '--interval', '0.5', ...flags, '--', ...asBuildUser(build.target)],
    { env: rambakeEnv(build), timeout: 600_000 },
  );
  await waitForBitbakeServer(build.topdir);
  return r;
}

/** apply (root) leaves rambake/ to root; the build user's `rambake run` writes its runs there. */
async function giveRambakeDir(build: TinyBuild): Promise<void> {
  const u = await ensureBuildUser();
  const dir = join(build.topdir, 'rambake');
  const walk = (p: string) => {
    chownSync(p, u.uid, u.gid);
    for (const e of readdirSync(p, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(p, e.name));
      else chownSync(join(p, e.name), u.uid, u.gid);
  };
  walk(dir);
}

/**
 * The reset between builds: the tmpfs emptied, sstate gone. pseudo's server outlives its last
 * client by its idle timeout and keeps deleted files charged to the tmpfs: wait until it let go.
 */
async function fromScratch(build: TinyBuild, ram: string): Promise<void> {
  rmSync(join(build.topdir, 'sstate-cache'), { recursive: true, force: true });
  for (const name of readdirSync(ram)) rmSync(join(ram, name), { recursive: true, force: true });
  const used = () => {
    const fs = statfsSync(ram);
    return (fs.blocks - fs.bfree) * fs.bsize;
  };
  for (const deadline = Date.now() + 180_000; used() > MiB && Date.now() < deadline; ) await sleep(1000);
  expect(used(), 'bytes still charged to the emptied tmpfs').toBeLessThanOrEqual(MiB);
}

/** revert, waiting out pseudo's server (revert refuses while a process uses the tmpfs). */
async function revert(build: TinyBuild): Promise<void> {
  const env = rambakeEnv(build);
  let r = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 120_000 });
  for (const deadline = Date.now() + 180_000; r.exitCode !== 0 && Date.now() < deadline; ) {
    await sleep(2000);
    r = await runRambake(['-B', build.topdir, '--json', 'revert'], { env, timeout: 120_000 });
  }
  expect(r.exitCode, r.stderr).toBe(0);
}

describeRealBuild('a build too big for the tmpfs, made to fit in steps, on the real BitBake', () => {
  it('record → plan → steps → apply → one go overfills → steps fit → report', {
    timeout: 1_800_000,
  }, async () => {
    // 1. Recorded in a tmpfs big enough for it, mounted by hand (apply, knowing nothing yet of
    // this build, would plan for core-image-sato's published figures and lower the threads to 1).
    const big = await mountTmpfs('1g');
    const build = await makeTinyBuild({ recipes: RECIPES, tmpdir: big, local: 'BB_NUMBER_THREADS = "4"\n' });
    const env = rambakeEnv(build);
    const together = join(build.topdir, TOGETHER);
    writeFileSync(together, '');
    const record = await runAsRoot(build, []);
    expect(record.exitCode, `${record.stderr}\n${record.stdout.slice(-2000)}`).toBe(0);
    const recorded = summaryOf(record.stdout);
    const oneGoPeak = recorded.peak.bytes;
    // Both build trees were there at once (else this build is no story: nothing to step).
    expect(oneGoPeak, JSON.stringify(recorded.workdirPeaks)).toBeGreaterThan((GIANT + SLOW) * MiB);

    // 2. plan, from the measurement.
    const plan = await runRambake(['-B', build.topdir, '--json', 'plan'], { env, timeout: 300_000 });
    const reasons = JSON.parse(plan.stdout).reasons as { topic: string; text: string }[];
    expect(reasons.find((r) => r.topic === 'need')?.text).toMatch(/^measured: TMPDIR peaked at /);

    // 3. steps: the giant (and the slow one) before the rest, from the recorded work-dir peaks.
    const steps = await runAsBuildUser(
      [process.execPath, CLI, '-B', build.topdir, '--json', 'steps', build.target],
      {
        cwd: build.topdir,
        env: build.env,
        timeoutMs: 300_000,
      },
    );
    expect(steps.exitCode, steps.stderr).toBe(0);
    expect(JSON.parse(steps.stdout).steps).toContain('tiny-giant');
    await waitForBitbakeServer(build.topdir);

    // 4. A tmpfs half the slow recipe's tree under the one-go peak.
    const size = Math.floor((oneGoPeak - (SLOW / 2) * MiB) / MiB);
    const { ram, applied } = await applyRam(build, `${size}m`);
    expect(applied.exitCode, applied.stderr).toBe(0);
    await giveRambakeDir(build);
    await fromScratch(build, ram);

    // 5. In one go: the tmpfs overfills.
    const oneGo = await runAsRoot(build, ['--move-old-deploy']);
    const said = `${oneGo.stdout}\n${oneGo.stderr}`;
    expect(oneGo.exitCode, said.slice(-3000)).not.toBe(0);
    expect(said).toMatch(/No space left on device|disk space monitor action is "(STOPTASKS|HALT)"/);
    expect(oneGo.stderr).toContain('rambake: the build failed with the tmpfs full: TMPDIR peaked at ');
    expect(oneGo.stderr).toContain(
      `in one go it does not fit. Build the giants first, one at a time: rambake run --steps auto -- /usr/sbin/runuser -u ${BUILD_USER} -- bitbake ${build.target}`,
    );

    // 6. In steps, from scratch, as the build user runs rambake: the peak stays under the size.
    rmSync(together);
    await fromScratch(build, ram);
    const stepped = await runAsBuildUser(
      [
        process.execPath,
        CLI,
        'run',
        '--json',
        '--interval',
        '0.5',
        '--steps',
        'auto',
        '--move-old-deploy',
        '--',
        'bitbake',
        build.target,
      ],
      { cwd: build.topdir, env: build.env, timeoutMs: 900_000 },
    );
    await waitForBitbakeServer(build.topdir);
    expect(stepped.exitCode, `${stepped.stderr}\n${stepped.stdout.slice(-3000)}`).toBe(0);
    const s = summaryOf(stepped.stdout);
    expect(s.steps.map((x) => x.command)).toContainEqual(['bitbake', 'tiny-giant']);
    expect(s.steps.at(-1)?.command).toEqual(['bitbake', build.target]);
    expect(s.peak.bytes).toBeLessThan(size * MiB);
    console.log(
      `real story: one-go peak ${(oneGoPeak / MiB).toFixed(1)} MiB, tmpfs ${size} MiB, stepped peak ${(s.peak.bytes / MiB).toFixed(1)} MiB (${s.steps.map((x) => `${x.command.at(-1)} ${((x.peak?.bytes ?? 0) / MiB).toFixed(1)}`).join(', ')})`,
    );

    // 7. The report: the failed one-go run and the stepped run side by side.
    const report = await runRambake(['-B', build.topdir, '--json', 'report', '--no-plan'], {
      env,
      timeout: 300_000,
    });
    expect(report.exitCode, report.stderr).toBe(0);
    const cmp = JSON.parse(report.stdout).comparison;
    expect(cmp.stepped.peakBytes).toBeLessThan(size * MiB);
    expect(cmp.oneGo.exitCode).not.toBe(0);
    await revert(build);
  });
});
