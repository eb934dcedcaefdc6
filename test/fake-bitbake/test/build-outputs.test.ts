// One small build, its files checked against bitbake-formats.md §3, §5, §8, §9 line by line.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rmWorkTargets } from '../src/fsops.js';
import { readScenario } from '../src/scenario.js';
import type { FakeConfig } from '../src/types.js';
import { build, makeConfig, makeTopdir } from './helpers.js';

let top: string;
let cfg: FakeConfig;
let result: Awaited<ReturnType<typeof build>>;
const zlibWd = () => path.join(cfg.baseWorkdir, 'core2-64-poky-linux', 'zlib', '1.3.1');

beforeAll(async () => {
  top = makeTopdir();
  cfg = makeConfig(top);
  result = await build(cfg, 'small');
});
afterAll(() => fs.rmSync(top, { recursive: true, force: true }));

describe('a small build with rm_work', () => {
  it('succeeds and writes the console log with its symlink', () => {
    expect(result.exitCode).toBe(0);
    const dir = path.join(cfg.logDir, 'cooker', 'qemux86-64');
    expect(path.basename(result.consoleLog)).toMatch(/^\d{14}\.log$/);
    expect(fs.readlinkSync(path.join(dir, 'console-latest.log'))).toBe(path.basename(result.consoleLog));
  });

  it('prints console lines in BitBake form', () => {
    const text = fs.readFileSync(result.consoleLog, 'utf8');
    const lines = text.split('\n');
    expect(lines).toContain('Build Configuration:');
    expect(lines.some((l) => /^MACHINE {14}= "qemux86-64"$/.test(l))).toBe(true);
    // progress text glued before the summary, as knotty leaves it
    expect(text).toMatch(
      /^Initialising tasks\.\.\.Sstate summary: Wanted \d+ Local \d+ Mirrors 0 Missed \d+ Current \d+ \(\d+% match, \d+% complete\)$/m,
    );
    const running = lines.filter((l) => /^NOTE: Running (noexec )?task \d+ of \d+ \(.+:do_\w+\)$/.test(l));
    expect(running.length).toBeGreaterThan(100);
    expect(text).toMatch(
      /^NOTE: Running task \d+ of \d+ \(virtual:native:\/srv\/layers\/openembedded-core\/meta\/recipes-fake\/quilt\/quilt_0\.68\.bb:do_compile\)$/m,
    );
    expect(text).toMatch(/^NOTE: recipe zlib-1\.3\.1-r0: task do_compile: Started$/m);
    expect(text).toMatch(/^NOTE: recipe zlib-1\.3\.1-r0: task do_compile: Succeeded$/m);
    expect(text).toMatch(
      /^NOTE: Running noexec task \d+ of \d+ \(.+core-image-minimal_1\.0\.bb:do_build\)$/m,
    );
    expect(lines.at(-2)).toMatch(
      /^NOTE: Tasks Summary: Attempted (\d+) tasks of which 0 didn't need to be rerun and all succeeded\.$/,
    );
  });

  it('writes buildstats task files with the trailing blanks', () => {
    const bs = path.join(cfg.buildstatsBase, result.buildName);
    expect(result.buildName).toMatch(/^\d{14}$/);
    const lines = fs.readFileSync(path.join(bs, 'zlib-1.3.1-r0', 'do_compile'), 'utf8').split('\n');
    expect(lines[0]).toBe('Event: TaskStarted ');
    expect(lines[1]).toMatch(/^Started: \d+\.\d\d $/);
    expect(lines[2]).toBe('zlib-1.3.1-r0: do_compile');
    expect(lines[3]).toMatch(/^Elapsed time: \d+\.\d\d seconds$/);
    expect(lines[4]).toMatch(/^utime: \d+$/);
    expect(lines).toContain('IO cancelled_write_bytes: 0');
    expect(lines.filter((l) => /^rusage ru_\w+: [\d.]+$/.test(l))).toHaveLength(9);
    expect(lines.filter((l) => /^Child rusage ru_\w+: [\d.]+$/.test(l))).toHaveLength(9);
    expect(lines.at(-3)).toBe('Status: PASSED ');
    expect(lines.at(-2)).toMatch(/^Ended: \d+\.\d\d $/);
    // noexec tasks have no file
    expect(fs.existsSync(path.join(bs, 'core-image-minimal-1.0-r0', 'do_build'))).toBe(false);
    const stats = fs.readFileSync(path.join(bs, 'build_stats'), 'utf8');
    expect(stats).toMatch(
      /^Host Info: (\S+ )+\nBuild Started: \d+\.\d\d \nElapsed time: \d+\.\d\d seconds \nCPU usage: \d+\.\d% \n$/,
    );
  });

  it('counts in IO wchar the bytes each task wrote; write_bytes only off a tmpfs', () => {
    const io = (task: string, key: string) => {
      const text = fs.readFileSync(
        path.join(cfg.buildstatsBase, result.buildName, 'zlib-1.3.1-r0', task),
        'utf8',
      );
      return Number(new RegExp(`^IO ${key}: (\\d+)$`, 'm').exec(text)?.[1]);
    };
    // zlib's build/ is 6,291,456 bytes at scale 1 (small.json); logs and pipes add under 70 kB.
    const build = Math.round(6291456 * readScenario('small').sizeScale);
    expect(io('do_compile', 'wchar')).toBeGreaterThanOrEqual(build);
    expect(io('do_compile', 'wchar')).toBeLessThan(build + 70_000);
    // rm_work writes nothing but its log.
    expect(io('do_rm_work', 'wchar')).toBeLessThan(70_000);
    const tmpfs = fs.statfsSync(cfg.tmpdir).type === 0x01021994;
    if (tmpfs) expect(io('do_compile', 'write_bytes')).toBeLessThan(16_384);
    else expect(io('do_compile', 'write_bytes')).toBeGreaterThanOrEqual(build);
  });

  it('keeps temp/ with log.task_order, task logs, run scripts and their symlinks', () => {
    const temp = path.join(zlibWd(), 'temp');
    const order = fs.readFileSync(path.join(temp, 'log.task_order'), 'utf8').trim().split('\n');
    for (const l of order) expect(l).toMatch(/^\d{8}-\d{6}\.\d{6} (do_\w+) \((\d+)\): log\.\1\.\2$/);
    const tasks = order.map((l) => l.split(' ')[1]);
    expect(new Set(tasks)).toEqual(
      new Set([
        'do_fetch',
        'do_unpack',
        'do_patch',
        'do_prepare_recipe_sysroot',
        'do_populate_lic',
        'do_configure',
        'do_compile',
        'do_install',
        'do_package',
        'do_populate_sysroot',
        'do_packagedata',
        'do_package_write_ipk',
        'do_package_qa',
        'do_rm_work',
      ]),
    );
    expect(tasks[0]).toBe('do_fetch');
    expect(tasks.at(-1)).toBe('do_rm_work');
    expect(tasks.indexOf('do_compile')).toBeGreaterThan(tasks.indexOf('do_configure'));
    const link = fs.readlinkSync(path.join(temp, 'log.do_compile'));
    expect(link).toMatch(/^log\.do_compile\.\d+$/);
    expect(fs.readlinkSync(path.join(temp, 'run.do_compile'))).toBe(link.replace('log.', 'run.'));
  });

  it('leaves only temp/ in a cleaned WORKDIR and rewrites its stamps (§5)', () => {
    expect(fs.readdirSync(zlibWd())).toEqual(['temp']);
    const stamps = fs.readdirSync(path.join(cfg.stampsDir, 'core2-64-poky-linux', 'zlib')).sort();
    for (const s of stamps) expect(s).toMatch(/^1\.3\.1\.do_\w+\.[0-9a-f]{64}$/);
    const tasks = stamps.map((s) => s.split('.')[3]);
    expect(tasks).toContain('do_populate_sysroot_setscene');
    expect(tasks).toContain('do_packagedata_setscene');
    expect(tasks).toContain('do_package_write_ipk');
    expect(tasks).toContain('do_build');
    expect(tasks.filter((t) => t?.startsWith('do_package_setscene') || t === 'do_package')).toEqual([]);
    expect(tasks).not.toContain('do_compile');
  });

  it('keeps the kernel WORKDIR (auto-excluded) and its work-shared source', () => {
    const wd = fs.readdirSync(
      path.join(cfg.baseWorkdir, 'qemux86_64-poky-linux', 'linux-yocto', '6.12.47+git'),
    );
    expect(wd).toEqual(expect.arrayContaining(['build', 'image', 'packages-split', 'temp']));
    expect(fs.readdirSync(path.join(cfg.workShared, 'qemux86-64'))).toEqual([
      'kernel-build-artifacts',
      'kernel-source',
    ]);
  });

  it('hardlinks recipe sysroots from sysroots-components', () => {
    const sysroot = path.join(
      cfg.baseWorkdir,
      'qemux86_64-poky-linux',
      'linux-yocto',
      '6.12.47+git',
      'recipe-sysroot-native',
    );
    const comp = path.join(cfg.componentsDir, 'x86_64', 'gcc-cross-x86_64');
    const rel = fs.readdirSync(path.join(comp, 'd0'))[0]!;
    const a = fs.statSync(path.join(comp, 'd0', rel));
    const b = fs.statSync(path.join(sysroot, 'd0', rel));
    expect(b.ino).toBe(a.ino);
    expect(a.nlink).toBeGreaterThan(1);
  });

  it('writes sstate objects, manifests and the index (STAMP MANFILEPREFIX WORKDIR)', () => {
    const index = fs.readFileSync(path.join(cfg.sstateManifests, 'index-core2-64'), 'utf8').split('\n');
    expect(index).toContain(
      `${cfg.stampsDir}/core2-64-poky-linux/zlib/1.3.1 ${cfg.sstateManifests}/manifest-core2-64-zlib ${zlibWd()}`,
    );
    expect(fs.existsSync(path.join(cfg.sstateManifests, 'manifest-core2-64-zlib.populate_sysroot'))).toBe(
      true,
    );
    const objects = fs.readdirSync(cfg.sstateDir, { recursive: true }) as string[];
    const zlib = objects.filter((o) => o.includes('sstate:zlib:'));
    expect(
      zlib.some((o) =>
        /^[0-9a-f]{2}\/[0-9a-f]{2}\/sstate:zlib:core2-64-poky-linux:1\.3\.1:r0:core2-64:14:[0-9a-f]{64}_package\.tar\.zst$/.test(
          o,
        ),
      ),
    ).toBe(true);
    expect(fs.readFileSync(path.join(cfg.tmpdir, 'saved_tmpdir'), 'utf8')).toBe(cfg.tmpdir);
    expect(fs.existsSync(path.join(cfg.deployDir, 'images', 'qemux86-64'))).toBe(true);
  });

  it('writes the event log with allvariables after the early events', () => {
    const dir = path.join(cfg.logDir, 'eventlog');
    const [file] = fs.readdirSync(dir);
    const lines = fs.readFileSync(path.join(dir, file!), 'utf8').trim().split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"allvariables"'));
    expect(at).toBe(47);
    expect(JSON.parse(lines[0]!)).toEqual({
      class: expect.any(String),
      vars: expect.stringMatching(/^[A-Za-z0-9+/=]+$/),
    });
    expect(JSON.parse(lines[at]!).allvariables.TMPDIR.v).toBe(cfg.tmpdir);
    // The cooker writes its list as str(v): Python's repr, as the real BitBake's log holds it.
    expect(JSON.parse(lines[at]!).allvariables.BB_CMDLINE.v).toMatch(/^\['[^']*'(, '[^']*')*\]$/);
    expect(lines.length).toBeGreaterThan(at + 10);
  });

  it('re-runs only do_package_write_ipk_setscene once after rm_work, then nothing (§5)', async () => {
    const again = await build(cfg, 'small', { buildNumber: 2 });
    expect(new Set(again.records.map((r) => `${r.task}${r.setscene ? '_setscene' : ''}`))).toEqual(
      new Set(['do_package_write_ipk_setscene']),
    );
    // the kernel is not cleaned, so its do_package stamp survives and nothing re-runs there
    expect(again.records.some((r) => r.pn === 'linux-yocto')).toBe(false);
    expect(again.lines.at(-1)).toMatch(/Attempted (\d+) tasks of which \1 didn't need to be rerun/);
    const third = await build(cfg, 'small', { buildNumber: 3 });
    expect(third.records).toEqual([]);
  });

  it('refuses a TMPDIR that moved, with sanity.bbclass words', async () => {
    fs.writeFileSync(path.join(cfg.tmpdir, 'saved_tmpdir'), '/elsewhere/tmp');
    await expect(build(cfg, 'small')).rejects.toThrow(
      'Error, TMPDIR has changed location. You need to either move it back to /elsewhere/tmp or delete it and rebuild',
    );
    fs.writeFileSync(path.join(cfg.tmpdir, 'saved_tmpdir'), cfg.tmpdir);
  });
});

describe("rm_work's WORKDIR pass", () => {
  it('deletes in `for dir in *` order: sorted, hidden names and RM_WORK_EXCLUDE_ITEMS kept', () => {
    const names = ['temp', 'sources', '.pc', 'build', 'packages-split', 'package', 'Zed', 'deploy-ipks'];
    expect(rmWorkTargets(names, ['temp'])).toEqual([
      'Zed',
      'build',
      'deploy-ipks',
      'package',
      'packages-split',
      'sources',
    ]);
  });
});
