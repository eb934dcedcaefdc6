// BB_DISKMON_DIRS on the real BitBake 2.15.2, TMPDIR on a real 1 GiB tmpfs: the thresholds
// rambake computes for it (diskmon.ts) let a build of the tiny layer finish, with the monitor
// really watching the tmpfs; Poky's template figure (STOPTASKS at 1G) stops the same build at
// once, as BitBake says and as `rambake doctor` predicts at the assignment's line.

import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import { diskmonValue } from '../../src/plan/diskmon.js';
import { runRambake } from '../helpers/exec.js';
import {
  bitbakeBuild,
  describeRealBuild,
  makeTinyBuild,
  mountTmpfs,
  rambakeEnv,
  type TinyBuild,
} from './harness.js';

/** The last line of local.conf (where the test appended BB_DISKMON_DIRS). */
function lastLine(build: TinyBuild): number {
  return readFileSync(join(build.topdir, 'conf', 'local.conf'), 'utf8')
    .trimEnd()
    .split('\n').length;
}

/** doctor's disk-monitor findings, from rambake's own reading of the conf files. */
async function diskmonFindings(
  build: TinyBuild,
): Promise<{ id: string; file?: string; line?: number; fix: string }[]> {
  const r = await runRambake(['-B', build.topdir, '--no-bitbake', '--json', 'doctor'], {
    env: rambakeEnv(build),
    timeout: 60_000,
  });
  const report = JSON.parse(r.stdout) as {
    findings: { id: string; file?: string; line?: number; fix: string }[];
  };
  return report.findings.filter((f) => f.id.startsWith('diskmon-'));
}

/** Used bytes per device, as buildstats' monitor_disk.log recorded them at each check. */
function monitorSamples(build: TinyBuild): Map<string, number[]> {
  const base = join(build.tmpdir, 'buildstats');
  const samples = new Map<string, number[]>();
  for (const name of readdirSync(base)) {
    const text = readFileSync(join(base, name, 'monitor_disk.log'), 'utf8');
    // "rambake-test-mnt-Ab12Cd: 11534336" after a time line
    for (const m of text.matchAll(/^(\S+): (\d+)$/gm)) {
      const list = samples.get(m[1] ?? '') ?? [];
      list.push(Number(m[2]));
      samples.set(m[1] ?? '', list);
    }
  }
  return samples;
}

describeRealBuild('BB_DISKMON_DIRS on a real 1 GiB tmpfs', () => {
  it("rambake's thresholds let the build finish", { timeout: 600_000 }, async () => {
    const ram = await mountTmpfs('1g');
    const fs = statfsSync(ram);
    const value = diskmonValue(ram, fs.blocks * fs.bsize, fs.files);
    expect(value).toMatch(/^STOPTASKS,\S+,102M,\S+ HALT,\S+,20M,/);
    const build = await makeTinyBuild({ tmpdir: ram, local: `BB_DISKMON_DIRS = "${value}"\n` });
    expect(await diskmonFindings(build)).toEqual([]);

    const r = await bitbakeBuild(build);
    expect(r.exitCode, r.stdout.slice(-3000)).toBe(0);
    expect(`${r.stdout}\n${r.stderr}`).not.toMatch(/disk space monitor|running low/);
    // The monitor was on (a value BitBake refused would have turned it off) and watched this
    // tmpfs, by the source name it was mounted with.
    const used = monitorSamples(build).get(`rambake-test-${basename(ram)}`);
    expect(used?.length, 'samples of the tmpfs in monitor_disk.log').toBeGreaterThan(0);
    expect(Math.max(...(used ?? []))).toBeGreaterThan(1024 * 1024);
  });

  it("Poky's 1G stops the same build at once (the control)", { timeout: 600_000 }, async () => {
    const ram = await mountTmpfs('1g');
    const build = await makeTinyBuild({
      tmpdir: ram,
      local: `BB_DISKMON_DIRS = "STOPTASKS,${ram},1G,100K"\n`,
    });
    const fs = statfsSync(ram);
    // doctor sees it coming, at the line that sets it, and proposes rambake's value.
    expect(await diskmonFindings(build)).toEqual([
      {
        id: 'diskmon-stops-at-once',
        severity: 'error',
        message: expect.stringContaining(`STOPTASKS,${ram},1G,100K starts no new task`),
        file: join(build.topdir, 'conf', 'local.conf'),
        line: lastLine(build),
        fix: expect.stringContaining(`"${diskmonValue(ram, fs.blocks * fs.bsize, fs.files)}"`),
      },
    ]);

    const r = await bitbakeBuild(build);
    expect(r.exitCode, r.stdout.slice(-3000)).toBe(1);
    // knotty prints warnings on stdout and errors on stderr.
    expect(r.stdout).toMatch(
      /The free space of \S+ \(rambake-test-\S+\) is running low \(\d\.\d{3}GB left\)/,
    );
    expect(r.stderr).toContain(
      'No new tasks can be executed since the disk space monitor action is "STOPTASKS"!',
    );
  });
});
