// Watch, churn and space against the real BitBake (issue #12), on one short sequence of real
// builds of the tiny layer with TMPDIR on a real tmpfs, run once in beforeAll:
//   1. a fresh build under `rambake run`; a class of the test records `du -sB1 WORKDIR` as
//      each do_rm_work starts (before it deletes anything): the truth for work-dir peaks;
//   2. `bitbake -c cleansstate tiny-hello`: a build in between that runs no rm_work;
//   3. the full build again, with `rambake watch --until-build-end` attached 5 s into it.
// Then `rambake space` against `df -i`, and `rambake churn --builds 7` across all three.

import { readdirSync, readFileSync, readlinkSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { beforeAll, expect, it } from 'vitest';
import type { ChurnReport } from '../../src/analyze/churn.js';
import type { SpaceReport } from '../../src/analyze/space.js';
import type { TimelineLine, TimelineSummary } from '../../src/timeline/timeline-types.js';
import { CLI, runRambake } from '../helpers/exec.js';
import {
  asBuildUser,
  bitbakeBuild,
  describeRealBuild,
  makeTinyBuild,
  mountTmpfs,
  rambakeEnv,
  type TinyBuild,
  waitForBitbakeServer,
} from './harness.js';

// A prefunc of do_rm_work: it runs after BitBake has started the task (log.task_order line,
// log file) and before the shell function that deletes. Its own du adds a few ms before the
// deletion; rambake starts sizing on the log file, which comes earlier.
const DU_CLASS = `python rambake_du_before_rm () {
    import os, subprocess
    out = d.expand('\${TOPDIR}/du-before-rm')
    os.makedirs(out, exist_ok=True)
    r = subprocess.run(['/usr/bin/du', '-sB1', d.getVar('WORKDIR')], capture_output=True, text=True)
    with open(os.path.join(out, d.getVar('PN')), 'w') as f:
        f.write(r.stdout.split()[0] + '\\n')
}
do_rm_work[prefuncs] += "rambake_du_before_rm"
`;

interface Sequence {
  build: TinyBuild;
  tmpfs: string;
  env: Record<string, string>;
  runSummary: TimelineSummary;
  duBeforeRm: Map<string, number>;
  attachTimeline: TimelineLine[];
  attachedAt: number;
  buildstats3: string;
}

let seq: Sequence;

function readJsonLines(path: string): TimelineLine[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TimelineLine);
}

async function waitFor(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(100);
  }
}

const startedLines = (log: string): number => {
  try {
    return (readFileSync(log, 'utf8').match(/: task do_\w+: Started/g) ?? []).length;
  } catch {
    return 0;
  }
};

describeRealBuild('watch, churn and space on real builds (issue #12)', () => {
  beforeAll(async () => {
    const tmpfs = await mountTmpfs('512m');
    const build = await makeTinyBuild({
      tmpdir: join(tmpfs, 'tmp'),
      recipes: { 'classes/rambake-du-before-rm.bbclass': DU_CLASS },
      local: 'INHERIT += "rambake-du-before-rm"\n',
    });
    const env = rambakeEnv(build);
    const timelines = join(build.topdir, 'timelines');

    // 1. Fresh, under rambake run (root), BitBake as the build user.
    const run = await runRambake(
      [
        '-B',
        build.topdir,
        '--json',
        'run',
        '--timeline',
        join(timelines, 'run.jsonl'),
        '--',
        ...asBuildUser(build.target),
      ],
      { env, timeout: 300_000 },
    );
    expect(run.exitCode, `${run.stderr}\n${run.stdout.slice(-2000)}`).toBe(0);
    await waitForBitbakeServer(build.topdir);
    const runSummary = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as TimelineSummary;
    const duDir = join(build.topdir, 'du-before-rm');
    const duBeforeRm = new Map(
      readdirSync(duDir).map((pn) => [pn, Number(readFileSync(join(duDir, pn), 'utf8'))] as const),
    );

    // 2. A build in between that runs no do_rm_work.
    const clean = await bitbakeBuild(build, ['-c', 'cleansstate', 'tiny-hello']);
    expect(clean.exitCode, clean.stdout.slice(-2000)).toBe(0);
    await sleep(1100); // BUILDNAME has one-second resolution

    // 3. The full build again; the watcher attaches once it has run tasks for 5 s.
    const consoleLog = join(build.tmpdir, 'log', 'cooker', 'qemux86-64', 'console-latest.log');
    const before = readdirSync(join(build.tmpdir, 'buildstats'));
    const third = bitbakeBuild(build);
    const started = Date.now();
    await waitFor(() => Date.now() - started > 5000 && startedLines(consoleLog) >= 5, 120_000);
    const timeline = join(timelines, 'attach.jsonl');
    const attachedAt = Date.now();
    const watch = execa(
      process.execPath,
      [CLI, '-B', build.topdir, '--json', 'watch', '--until-build-end', '--timeline', timeline],
      { env: { ...env, NO_COLOR: '1' }, extendEnv: false, reject: false, stdin: 'ignore', timeout: 300_000 },
    );
    const [r3, w] = await Promise.all([third, watch]);
    expect(r3.exitCode, r3.stdout.slice(-2000)).toBe(0);
    expect(w.exitCode, w.stderr).toBe(0);
    const buildstats3 = readdirSync(join(build.tmpdir, 'buildstats')).find((n) => !before.includes(n))!;
    seq = {
      build,
      tmpfs,
      env,
      runSummary,
      duBeforeRm,
      attachTimeline: readJsonLines(timeline),
      attachedAt,
      buildstats3,
    };
  }, 600_000);

  it('sizes each work dir within 2 % of du as its do_rm_work starts', () => {
    const peaks = seq.runSummary.workdirPeaks;
    const rows: string[] = [];
    expect(seq.duBeforeRm.size).toBeGreaterThanOrEqual(5);
    for (const [pn, du] of seq.duBeforeRm) {
      const key = Object.keys(peaks).find((k) => k.split('/')[1] === pn);
      expect(key, `no peak recorded for ${pn}`).toBeDefined();
      const peak = peaks[key!]!;
      const error = (peak - du) / du;
      rows.push(`${pn}: du ${du}, peak ${peak} (${(error * 100).toFixed(2)} %)`);
      expect(Math.abs(error), rows.at(-1)).toBeLessThanOrEqual(0.02);
    }
    console.log(`work-dir peak vs du before rm_work:\n  ${rows.join('\n  ')}`);
  });

  it('attached mid-build: earlier events keep their own times, and no recipe of the build is stale', () => {
    const lines = seq.attachTimeline;
    const header = lines.find((l) => l.type === 'header');
    expect(header).toBeDefined();
    const attach = Date.parse(header!.type === 'header' ? header!.startedAt : '');
    const tasks = lines.filter((l) => l.type === 'task-start' || l.type === 'task-end');
    const before = tasks.filter((l) => l.t < attach);
    // Tasks ran before the attach, and they are timed from buildstats, not at the attach.
    expect(before.length).toBeGreaterThanOrEqual(5);
    // Everything read while catching up (before the first sample) has the time buildstats
    // gives it (Started for a start, Ended for an end), unless marked as replayed.
    const bsDir = join(seq.build.tmpdir, 'buildstats', seq.buildstats3);
    const firstSample = lines.findIndex((l) => l.type === 'sample');
    let timed = 0;
    for (const e of lines.slice(0, firstSample)) {
      if ((e.type !== 'task-start' && e.type !== 'task-end') || e.replayed) continue;
      const file = join(bsDir, e.pf!, `${e.task}${e.setscene ? '_setscene' : ''}`);
      const key = e.type === 'task-start' ? 'Started' : 'Ended';
      const own = Number(new RegExp(`^${key}: ([\\d.]+)`, 'm').exec(readFileSync(file, 'utf8'))![1]) * 1000;
      expect(Math.abs(e.t - own), `${file} ${key}`).toBeLessThan(2);
      timed++;
    }
    expect(timed).toBeGreaterThanOrEqual(5);
    const active = new Set(tasks.map((l) => (l.type === 'task-start' ? l.pn : '')));
    const stale = lines.filter((l) => l.type === 'workdir-state' && l.state === 'stale');
    for (const s of stale)
      if (s.type === 'workdir-state') expect(active.has(s.pn), JSON.stringify(s)).toBe(false);
    expect(attach).toBeGreaterThanOrEqual(seq.attachedAt - 1000);
  });

  it('space counts inodes as the tmpfs charges them: df -i to the inode', async () => {
    // Compared only while nothing writes or holds files there: BitBake's server may still be
    // leaving, and pseudo's server outlives its last client by its idle timeout.
    await waitForBitbakeServer(seq.build.topdir);
    let holders = holdersUnder(seq.tmpfs);
    for (const deadline = Date.now() + 120_000; holders.length > 0 && Date.now() < deadline; ) {
      await sleep(500);
      holders = holdersUnder(seq.tmpfs);
    }
    expect(holders, 'processes still holding files on the tmpfs').toEqual([]);
    const iused = async () =>
      Number((await execa('df', ['--output=iused', seq.tmpfs])).stdout.trim().split('\n').at(-1));
    let report: SpaceReport | undefined;
    let dfUsed = -1;
    for (let attempt = 0; attempt < 3 && report === undefined; attempt++) {
      const before = await iused();
      const r = await runRambake(['-B', seq.build.topdir, '--json', 'space'], {
        env: seq.env,
        timeout: 120_000,
      });
      expect(r.exitCode, r.stderr).toBe(0);
      dfUsed = await iused();
      if (dfUsed === before) report = JSON.parse(r.stdout) as SpaceReport;
    }
    if (report === undefined) throw new Error(`${seq.tmpfs} kept changing while space scanned it`);
    const fs = statfsSync(seq.tmpfs);
    expect(fs.files - fs.ffree).toBe(dfUsed);
    const t = report.tmpdir;
    console.log(
      `inodes: df -i ${dfUsed}; rambake ${t.tmpfsInodes} charged (${t.inodes} distinct + ${t.tmpfsInodes - t.inodes} extra links) + the mount's root`,
    );
    // Nothing holds a deleted file any more, so the tmpfs holds TMPDIR and its own root folder.
    expect(t.tmpfsInodes + 1).toBe(dfUsed);
    expect(t.inodes).toBeLessThan(t.tmpfsInodes); // recipe sysroots are hard links
  }, 300_000);

  it('churn: write setscene after rm_work across a cleansstate build, all builds, reuse rows from the data', async () => {
    const r = await runRambake(['-B', seq.build.topdir, '--json', 'churn', '--builds', '7'], {
      env: seq.env,
      timeout: 120_000,
    });
    expect([0, 1]).toContain(r.exitCode);
    const report = JSON.parse(r.stdout) as ChurnReport;
    const folders = readdirSync(join(seq.build.tmpdir, 'buildstats')).filter((n) => /^\d{14}$/.test(n));
    expect(report.builds.map((b) => b.name)).toEqual(folders.sort());
    expect(report.requestedBuilds).toBe(7);
    const last = report.builds.at(-1)!;
    expect(last.name).toBe(seq.buildstats3);
    // The build in between ran no do_rm_work: compared with the build that did.
    const written = last.writeSetsceneAfterRmWork.map((w) => `${w.pn} ${w.task}`);
    expect(written).toContain('tiny-giant do_package_write_deb_setscene');
    expect(written).not.toContain('tiny-hello do_package_write_deb_setscene');
    // Every task seen as setscene in any of the builds gets a row with its real runs counted.
    const tasksIn = (name: string) => {
      const bs = join(seq.build.tmpdir, 'buildstats', name);
      return readdirSync(bs, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .flatMap((pf) => readdirSync(join(bs, pf.name)));
    };
    const withSetscene = new Set(
      folders.flatMap(tasksIn).flatMap((t) => (t.endsWith('_setscene') ? [t.slice(0, -9)] : [])),
    );
    const real = new Map<string, number>();
    for (const t of tasksIn(last.name)) if (withSetscene.has(t)) real.set(t, (real.get(t) ?? 0) + 1);
    for (const [task, n] of real) expect(last.reuse.find((x) => x.task === task)?.real, task).toBe(n);
    console.log(
      `reuse rows of the last build: ${last.reuse.map((x) => `${x.task} ${x.setscene}/${x.real}`).join(', ')}`,
    );
    const text = await runRambake(['-B', seq.build.topdir, 'churn', '--builds', '7'], { env: seq.env });
    expect(text.stdout).toContain(`${folders.length} of the 7 builds asked for`);
  });
});

/**
 * Processes that still hold something under `mount`: an open file, a memory map, a working
 * folder (/proc/<pid>/fd, maps, cwd). A file deleted while held stays charged to the tmpfs,
 * which a scan cannot see; pseudo's server lingers after its last client (rm_work removed its
 * database meanwhile) and exits on its own idle timeout.
 */
function holdersUnder(mount: string): string[] {
  const under = (p: string): boolean => p === mount || p.startsWith(`${mount}/`);
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const paths: string[] = [];
    try {
      paths.push(readlinkSync(`/proc/${pid}/cwd`));
      for (const fd of readdirSync(`/proc/${pid}/fd`)) paths.push(readlinkSync(`/proc/${pid}/fd/${fd}`));
      for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
        const m = /^\S+ \S+ \S+ \S+ \d+\s+(\/.*)$/.exec(line);
        if (m?.[1]) paths.push(m[1]);
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
    const held = paths.map((p) => p.replace(/ \(deleted\)$/, '')).filter(under);
    if (held.length > 0) {
      let comm = '?';
      try {
        comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        // gone
      }
      found.push(`${pid} ${comm}: ${held[0]}`);
    }
  }
  return found;
}
