// A fake-BitBake build on its own tmpfs (root) or in a folder of /dev/shm, with the file
// system's usage sampled while it runs: the measured peak the prediction is checked against,
// and the samples a training run's timeline is made of.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { statFsSync } from '../../src/system/fsstat.js';
import type { TimelineLine } from '../../src/timeline/timeline-types.js';
import { FAKE_BIN, ROOT } from '../helpers/exec.js';

export interface FakeBuild {
  root: string;
  topdir: string;
  tmpdir: string;
  /** How TMPDIR is held: a private tmpfs mount, or a folder of /dev/shm. */
  holder: 'mount' | 'dev-shm';
  env: Record<string, string>;
  /** Bytes the file system held before the build (others' files in /dev/shm). */
  baseline: number;
  cleanup(): void;
}

export const isRoot = (): boolean => process.getuid?.() === 0;
export const devShmIsTmpfs = (): boolean => {
  try {
    return fs.statfsSync('/dev/shm').type === 0x01021994;
  } catch {
    return false;
  }
};

/** A copy of examples/ with rm_work, `threads` and TMPDIR on a tmpfs. */
export function makeFakeBuild(threads: number, scenario: string): FakeBuild {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-predict-'));
  fs.cpSync(path.join(ROOT, 'examples'), root, { recursive: true, verbatimSymlinks: true });
  const topdir = path.join(root, 'build');
  let tmpdir = path.join(topdir, 'tmp');
  let holder: FakeBuild['holder'] = 'mount';
  if (isRoot()) {
    fs.mkdirSync(tmpdir);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4g,mode=755', 'rambake-predict', tmpdir]);
  } else {
    holder = 'dev-shm';
    tmpdir = fs.mkdtempSync('/dev/shm/rambake-predict-');
  }
  fs.appendFileSync(
    path.join(topdir, 'conf', 'local.conf'),
    `INHERIT += "rm_work"\nBB_NUMBER_THREADS = "${threads}"\nTMPDIR = "${tmpdir}"\n`,
  );
  const env = {
    PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    FAKE_BITBAKE_SCENARIO: scenario,
    BUILDDIR: topdir,
  };
  return {
    root,
    topdir,
    tmpdir,
    holder,
    env,
    baseline: statFsSync(tmpdir).usedBytes,
    cleanup: () => {
      if (holder === 'mount') execFileSync('umount', [tmpdir]);
      else fs.rmSync(tmpdir, { recursive: true, force: true });
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface Measured {
  peak: number;
  samples: { t: number; used: number }[];
  startedAt: number;
  endedAt: number;
}

/** Runs `bitbake args…` in the build, sampling TMPDIR's usage every few ms. */
export async function runMeasured(
  b: FakeBuild,
  args: string[],
  scales: { time: number; size: number },
): Promise<Measured> {
  const baseline = b.baseline;
  const samples: { t: number; used: number }[] = [];
  const sample = () => samples.push({ t: Date.now(), used: statFsSync(b.tmpdir).usedBytes - baseline });
  sample();
  const startedAt = Date.now();
  const timer = setInterval(sample, 3);
  try {
    const r = await execa(
      process.execPath,
      [
        path.join(FAKE_BIN, 'bitbake'),
        ...args,
        '--time-scale',
        String(scales.time),
        '--size-scale',
        String(scales.size),
      ],
      { cwd: b.topdir, env: b.env, extendEnv: false, reject: false },
    );
    if (r.exitCode !== 0) throw new Error(`fake bitbake ${args.join(' ')} failed: ${r.stderr}`);
  } finally {
    clearInterval(timer);
  }
  sample();
  return { peak: Math.max(...samples.map((s) => s.used)), samples, startedAt, endedAt: Date.now() };
}

/** What the watcher would have left: a timeline with usage samples (no task events). */
export function writeTimeline(b: FakeBuild, m: Measured, command: string[]): string {
  const dir = path.join(b.topdir, 'rambake', 'runs');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date(m.startedAt).toISOString().replace(/[:.]/g, '-')}.jsonl`);
  const lines: TimelineLine[] = [
    {
      type: 'header',
      schemaVersion: 1,
      startedAt: new Date(m.startedAt).toISOString(),
      buildDir: b.topdir,
      tmpdir: b.tmpdir,
      tmpfs: { mountPoint: b.tmpdir, fsType: 'tmpfs', source: 'rambake-predict' },
      host: { memTotal: os.totalmem(), swapTotal: 0, cpus: os.availableParallelism() },
      command,
    },
    ...m.samples.map(
      (s): TimelineLine => ({
        type: 'sample',
        t: s.t,
        fs: { usedBytes: s.used, totalBytes: 0, usedInodes: 0, totalInodes: 0 },
        workdirs: {},
      }),
    ),
  ];
  fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return file;
}
