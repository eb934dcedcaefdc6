// The founding story's figure: the peak of the fake BitBake's sato-like build (rm_work on) in
// steps (`rambake run --steps auto`, the giant first) against the same build in one go, both
// from scratch (no sstate) in the same real tmpfs, as `rambake run` records them. The tmpfs is
// mounted here, not by apply, so both builds run with the build's own thread count. Root only:
// on a disk shared with other writers a peak is the growth of the whole file system.

import { appendFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { copyExample, FAKE_BIN } from '../test/helpers/exec.js';
import { ENTRY } from '../test/watch/helpers.js';
import type { BenchRow } from './types.js';

const TARGET = 'core-image-sato';

export default async function (): Promise<BenchRow[]> {
  if (process.getuid?.() !== 0) {
    process.stderr.write('bench story skipped: not root (it mounts a real tmpfs)\n');
    return [];
  }
  const copy = copyExample();
  const ram = join(copy.topdir, 'ram');
  const env = {
    PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    NO_COLOR: '1',
    HOME: process.env.HOME ?? '/root',
    FAKE_BITBAKE_SCENARIO: 'sato-like',
    FAKE_BITBAKE_TIME_SCALE: '0.002',
  };
  const peak = async (flags: string[]): Promise<number> => {
    const r = await execa(
      process.execPath,
      [ENTRY, 'run', '--json', '--interval', '0.02', ...flags, '--', 'bitbake', TARGET],
      { cwd: copy.topdir, env, extendEnv: false, reject: false, stdin: 'ignore' },
    );
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as {
      exitCode?: number;
      peak?: { bytes: number };
    };
    if (summary.exitCode !== 0 || !summary.peak)
      throw new Error(`bench story: ${flags.join(' ') || 'one go'} failed:\n${r.stderr.slice(-2000)}`);
    return summary.peak.bytes;
  };
  mkdirSync(ram);
  await execa('mount', ['-t', 'tmpfs', '-o', 'size=4g', 'rambake-bench-story', ram]);
  try {
    // Poky's BB_DISKMON_DIRS (STOPTASKS at 1G) would stop every build on a 4 GiB tmpfs at once.
    appendFileSync(
      join(copy.topdir, 'conf', 'local.conf'),
      'INHERIT += "rm_work"\nTMPDIR = "${TOPDIR}/ram"\nBB_DISKMON_DIRS = ""\n',
    );
    const oneGo = await peak([]);
    rmSync(join(copy.root, 'sstate-cache'), { recursive: true, force: true });
    for (const name of readdirSync(ram)) rmSync(join(ram, name), { recursive: true, force: true });
    const stepped = await peak(['--steps', 'auto']);
    const ratio = stepped / oneGo;
    const row = {
      bench: 'story',
      metric: 'peak in steps (giant first) vs in one go, fake sato-like with rm_work, from scratch',
      kind: 'measured' as const,
      value: stepped,
      unit: 'bytes',
      reference: oneGo,
      ratio,
      // The giant's own work dir is about 0.68 of the one-go peak: steps cannot go below it.
      goal: '≤ 0.80×',
      ok: ratio <= 0.8,
    };
    return [row];
  } finally {
    await execa('umount', [ram], { reject: false });
    copy.cleanup();
  }
}
