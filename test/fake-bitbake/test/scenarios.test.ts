// Each scenario reproduces what it claims; schedulers keep their invariants; a seed replays.

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TaskRecord } from '../src/types.js';
import { build, makeConfig, makeTopdir } from './helpers.js';

const tops: string[] = [];
const fresh = () => {
  const t = makeTopdir();
  tops.push(t);
  return t;
};
afterEach(() => {
  for (const t of tops.splice(0)) fs.rmSync(t, { recursive: true, force: true });
});

/** §11: do_package_setscene ran for PN and no real consumer task of PN ran. */
function redundantPackageSetscene(records: TaskRecord[]): string[] {
  const consumers = ['do_packagedata', 'do_package_qa', 'do_package_write_ipk', 'do_create_spdx'];
  return records
    .filter((r) => r.setscene && r.task === 'do_package')
    .map((r) => r.pn)
    .filter((pn) => !records.some((r) => r.pn === pn && !r.setscene && consumers.includes(r.task)));
}

function maxConcurrent(records: TaskRecord[]): number {
  const ev = records.flatMap((r) => [
    { t: r.start, d: 1 },
    { t: r.end, d: -1 },
  ]);
  ev.sort((a, b) => a.t - b.t || a.d - b.d);
  let cur = 0;
  let max = 0;
  for (const e of ev) {
    cur += e.d;
    max = Math.max(max, cur);
  }
  return max;
}

/** Per recipe: first real task start → do_rm_work end (virtual seconds). */
function meanWorkdirLifetime(records: TaskRecord[]): number {
  const first = new Map<string, number>();
  const lifetimes: number[] = [];
  for (const r of records) if (!r.setscene) first.set(r.pn, Math.min(first.get(r.pn) ?? r.start, r.start));
  for (const r of records) if (r.task === 'do_rm_work') lifetimes.push(r.end - first.get(r.pn)!);
  return lifetimes.reduce((a, b) => a + b, 0) / lifetimes.length;
}

describe('churn', () => {
  it('restores do_package for nothing in builds 2 and 3, and package_write_ipk once after rm_work', async () => {
    const cfg = makeConfig(fresh());
    const b1 = await build(cfg, 'churn', { buildNumber: 1 });
    expect(redundantPackageSetscene(b1.records)).toEqual([]);
    const b2 = await build(cfg, 'churn', { buildNumber: 2 });
    const b3 = await build(cfg, 'churn', { buildNumber: 3 });
    expect(redundantPackageSetscene(b2.records).sort()).toEqual(['busybox', 'zlib']);
    expect(redundantPackageSetscene(b3.records).sort()).toEqual(['busybox', 'zlib']);
    const pw = (rs: TaskRecord[]) =>
      rs.filter((r) => r.setscene && r.task === 'do_package_write_ipk').map((r) => r.pn);
    expect(pw(b2.records)).toEqual(expect.arrayContaining(['zlib', 'busybox', 'openssl']));
    expect(pw(b3.records)).toEqual([]);
    // side evidence: no do_rm_work after the restore, packages-split left in WORKDIR
    expect(b2.records.some((r) => r.pn === 'zlib' && r.task === 'do_rm_work')).toBe(false);
    const wd = path.join(cfg.baseWorkdir, 'core2-64-poky-linux', 'zlib', '1.3.1');
    expect(fs.readdirSync(wd)).toEqual(expect.arrayContaining(['packages-split', 'temp']));
    expect(b2.lines).toContain('NOTE: recipe zlib-1.3.1-r0: task do_package_setscene: Started');
    expect(
      b2.lines.some((l) =>
        /^NOTE: Running setscene task \d+ of \d+ \(.+zlib_1\.3\.1\.bb:do_package_setscene\)$/.test(l),
      ),
    ).toBe(true);
  });
});

describe('fail', () => {
  it('stops at the failing do_compile with BitBake error lines and FAILED buildstats', async () => {
    const cfg = makeConfig(fresh());
    const r = await build(cfg, 'fail');
    expect(r.exitCode).toBe(1);
    const text = fs.readFileSync(r.consoleLog, 'utf8');
    const wd = path.join(cfg.baseWorkdir, 'core2-64-poky-linux', 'busybox', '1.37.0');
    expect(text).toMatch(
      new RegExp(`^ERROR: Logfile of failure stored in: ${wd}/temp/log\\.do_compile\\.\\d+$`, 'm'),
    );
    expect(text).toMatch(
      /^ERROR: Task \(\/srv\/layers\/openembedded-core\/meta\/recipes-fake\/busybox\/busybox_1\.37\.0\.bb:do_compile\) failed with exit code '1'$/m,
    );
    expect(text).toMatch(
      /^NOTE: Tasks Summary: Attempted \d+ tasks of which \d+ didn't need to be rerun and 1 failed\.$/m,
    );
    const bs = path.join(cfg.buildstatsBase, r.buildName);
    expect(fs.readFileSync(path.join(bs, 'busybox-1.37.0-r0', 'do_compile'), 'utf8')).toMatch(
      /\nStatus: FAILED \nEnded: \d+\.\d\d \n$/,
    );
    expect(fs.readFileSync(path.join(bs, 'build_stats'), 'utf8')).toContain(
      'Failed at: busybox-1.37.0-r0 at task: do_compile \n',
    );
    // work directories stay behind; the image never ran
    expect(fs.readdirSync(wd)).toEqual(expect.arrayContaining(['recipe-sysroot', 'sources', 'temp']));
    expect(r.records.some((x) => x.pn === 'core-image-minimal' && x.task === 'do_rootfs')).toBe(false);
  });

  it('-k keeps building what does not need the failed task', async () => {
    const cfg = makeConfig(fresh());
    const halted = await build(cfg, 'fail');
    const cfg2 = makeConfig(fresh());
    const k = await build(cfg2, 'fail', { continueOnFail: true });
    expect(k.exitCode).toBe(1);
    expect(k.records.length).toBeGreaterThan(halted.records.length);
  });
});

describe('version-bump', () => {
  it('leaves the old PV WORKDIR behind when the second build bumps netbase', async () => {
    const cfg = makeConfig(fresh());
    await build(cfg, 'version-bump', { buildNumber: 1 });
    const b2 = await build(cfg, 'version-bump', { buildNumber: 2 });
    const dir = path.join(cfg.baseWorkdir, 'core2-64-poky-linux', 'netbase');
    expect(fs.readdirSync(dir).sort()).toEqual(['6.5', '6.6']);
    expect(b2.records.some((r) => r.pn === 'netbase' && r.task === 'do_compile')).toBe(true);
    expect(b2.records.some((r) => r.pn === 'zlib' && !r.setscene)).toBe(false);
  });
});

describe('schedulers', () => {
  it('never runs more than BB_NUMBER_THREADS tasks at once', async () => {
    for (const threads of [1, 3]) {
      const r = await build(makeConfig(fresh(), { threads }), 'small');
      expect(maxConcurrent(r.records.filter((x) => !x.noexec))).toBe(threads);
    }
  });

  it('completion cleans WORKDIRs sooner than speed', async () => {
    const speed = await build(makeConfig(fresh(), { scheduler: 'speed' }), 'small');
    const completion = await build(makeConfig(fresh(), { scheduler: 'completion' }), 'small');
    expect(meanWorkdirLifetime(completion.records)).toBeLessThan(meanWorkdirLifetime(speed.records));
  });
});

describe('determinism', () => {
  it('replays the same task order and logs for a seed', async () => {
    const strip = (l: string) => l.replace(/\d+/g, 'N');
    const a = await build(makeConfig(fresh()), 'small', { seed: 42 });
    const b = await build(makeConfig(fresh()), 'small', { seed: 42 });
    const order = (rs: TaskRecord[]) => rs.map((r) => `${r.pn}:${r.task}:${r.start.toFixed(6)}`);
    expect(order(b.records)).toEqual(order(a.records));
    // only the temp paths and times differ
    const norm = (ls: string[], top: string) => ls.map((l) => strip(l.split(top).join('TOP')));
    expect(norm(b.lines, 'x')).toEqual(norm(a.lines, 'x'));
    const c = await build(makeConfig(fresh()), 'small', { seed: 7 });
    expect(order(c.records)).not.toEqual(order(a.records));
  });
});

describe('streamed task output', () => {
  it('real-pace writes do_compile output into its log while the task runs, small writes none', async () => {
    const top = fresh();
    const cfg = makeConfig(top);
    // 0.05 s per scenario second: a 5 s do_compile lasts 250 ms, a dozen 20 ms steps.
    const r = await build(cfg, 'real-pace', { timeScale: 0.05 });
    const compiles = r.records.filter((x) => x.task === 'do_compile' && !x.setscene && !x.noexec);
    expect(compiles.length).toBeGreaterThan(0);
    for (const c of compiles) {
      const pv = fs.readdirSync(cfg.baseWorkdir).flatMap((arch) => {
        const dir = path.join(cfg.baseWorkdir, arch, c.pn);
        return fs.existsSync(dir) ? fs.readdirSync(dir).map((v) => path.join(dir, v)) : [];
      });
      const log = fs.readFileSync(path.join(pv[0]!, 'temp', 'log.do_compile'), 'utf8').split('\n');
      const output = log.filter((l) => l.startsWith('x86_64-poky-linux-gcc ')).length;
      // 50 lines per scenario second, all written before the task ends, also on a loaded host.
      expect(output).toBe(Math.floor((c.end - c.start) * 50));
      expect(log[0]).toBe('DEBUG: Executing shell function do_compile');
      expect(log.at(-2)).toBe('DEBUG: Shell function do_compile finished');
    }
    const small = fresh();
    const smallCfg = makeConfig(small);
    await build(smallCfg, 'small', { timeScale: 0.01 });
    const busybox = path.join(smallCfg.baseWorkdir, 'core2-64-poky-linux', 'busybox');
    const v = fs.readdirSync(busybox)[0]!;
    const text = fs.readFileSync(path.join(busybox, v, 'temp', 'log.do_compile'), 'utf8');
    expect(text).not.toContain('x86_64-poky-linux-gcc ');
  });
});
