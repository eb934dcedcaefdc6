// What revert reports after apply → build: where the RAM builds' images, buildstats and logs
// are (rambake-keep/, only what exists, with sizes) and what BitBake does at the next build,
// judged from what the old TMPDIR on disk holds. Over temp build dirs laid out as BitBake
// leaves them.

import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply.js';
import { revertApply } from '../../src/apply/revert.js';
import { findKeptOutputs, predictNextBuild } from '../../src/apply/revert-aftermath.js';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import { tmpfsSourceName } from '../../src/plan/mount-commands.js';
import { renderRevert } from '../../src/report/apply.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, tempDir } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

function temp(): string {
  const dir = tempDir('rambake-revert-');
  cleanups.push(dir.cleanup);
  return dir.path;
}

/** Writes `bytes` bytes at `path` (folders made). */
function file(path: string, bytes = 0, text = 'x'.repeat(bytes)): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** rambake-keep/ as two RAM builds of qemux86-64 leave it. */
function keepAfterTwoBuilds(topdir: string): void {
  const keep = join(topdir, 'rambake-keep');
  file(join(keep, 'deploy/images/qemux86-64/tiny-image.ext4'), 64 * 1024);
  file(join(keep, 'deploy/deb/all/tiny-text_1.0-r0_all.deb'), 8 * 1024);
  file(join(keep, 'deploy/licenses/tiny-text/generic_MIT'), 100);
  file(join(keep, 'buildstats/20261203101500/build_stats'), 200);
  file(join(keep, 'buildstats/20261203102000/build_stats'), 200);
  file(join(keep, 'log/cooker/qemux86-64/20261203101500.log'), 3000);
  file(join(keep, 'log/cooker/qemux86-64/20261203102000.log'), 3000);
  symlinkSync('20261203102000.log', join(keep, 'log/cooker/qemux86-64/console-latest.log'));
}

describe('what the RAM builds left in rambake-keep/', () => {
  it('lists images, the rest of deploy, buildstats and logs that exist, with sizes and counts', async () => {
    const topdir = temp();
    keepAfterTwoBuilds(topdir);
    const kept = await findKeptOutputs(topdir);
    const keep = join(topdir, 'rambake-keep');
    // No event logs were written: none listed.
    expect(kept.map((k) => [k.kind, k.path, k.count])).toEqual([
      ['images', join(keep, 'deploy/images'), 1],
      ['deploy', join(keep, 'deploy'), 2],
      ['buildstats', join(keep, 'buildstats'), 2],
      ['console-logs', join(keep, 'log/cooker'), 2],
    ]);
    const bytes = Object.fromEntries(kept.map((k) => [k.kind, k.bytes]));
    // du-style sizes: at least the data, and the images are not counted twice.
    expect(bytes.images).toBeGreaterThanOrEqual(64 * 1024);
    expect(bytes.deploy).toBeGreaterThanOrEqual(8 * 1024);
    expect(bytes.deploy).toBeLessThan(64 * 1024);
  });

  it('is empty when no RAM build ran', async () => {
    expect(await findKeptOutputs(temp())).toEqual([]);
  });
});

describe('what BitBake does at the next build', () => {
  const tmpdirScope = (tmpdir: string) => ({ scope: 'tmpdir' as const, tmpdir, mountPath: '/b/tmp-ram' });

  it('an old TMPDIR with no stamps: a full parse, then setscene restores from sstate', async () => {
    const tmpdir = join(temp(), 'tmp');
    const next = await predictNextBuild(tmpdirScope(tmpdir));
    expect(next).toMatchObject({ tmpdir, state: 'empty', stamps: 0, manifests: 0 });
    expect(next.text).toContain('parses every recipe again');
    expect(next.text).toContain('setscene task');
    // A parse cache left from before apply is read instead.
    mkdirSync(join(tmpdir, 'cache'), { recursive: true });
    expect((await predictNextBuild(tmpdirScope(tmpdir))).text).toContain('reads the parse cache left there');
  });

  it('an old TMPDIR with the stamps of a build from before apply: trusted, changed tasks from sstate', async () => {
    const tmpdir = join(temp(), 'tmp');
    const stamp = join(tmpdir, 'stamps/x86_64-linux/tiny-tool-native/1.0.do_populate_sysroot_setscene.ab12');
    file(stamp);
    file(join(tmpdir, 'stamps/all-poky-linux/tiny-text/1.0.do_build.cd34'));
    file(join(tmpdir, 'sstate-control/manifest-x86_64_x86_64-linux-tiny-tool-native.populate_sysroot'));
    file(join(tmpdir, 'sstate-control/index-x86_64_x86_64-linux'));
    file(join(tmpdir, 'saved_tmpdir'), 0, `${tmpdir}\n`);
    const when = new Date('2026-12-01T08:30:00Z');
    utimesSync(stamp, when, when);
    utimesSync(
      join(tmpdir, 'stamps/all-poky-linux/tiny-text/1.0.do_build.cd34'),
      when,
      new Date('2026-11-30T10:00:00Z'),
    );
    const next = await predictNextBuild(tmpdirScope(tmpdir));
    expect(next).toMatchObject({
      state: 'before-apply',
      stamps: 2,
      manifests: 1,
      newestStamp: when.toISOString(),
    });
    expect(next.text).toContain('2 stamps, the newest from 2026-12-01 08:30 UTC, 1 sstate-control manifest.');
    expect(next.text).toContain('restored from SSTATE_DIR by its setscene task');
  });

  it('an old TMPDIR whose saved_tmpdir names another path: BitBake refuses it', async () => {
    const tmpdir = join(temp(), 'tmp');
    file(join(tmpdir, 'saved_tmpdir'), 0, '/elsewhere/tmp\n');
    const next = await predictNextBuild(tmpdirScope(tmpdir));
    expect(next.state).toBe('moved');
    expect(next.text).toContain('"Error, TMPDIR has changed location"');
  });

  it('a WORKDIR-only tmpfs: stamps stay, work dirs are gone', async () => {
    const tmpdir = join(temp(), 'tmp');
    file(join(tmpdir, 'stamps/core2-64-poky-linux/zlib/1.3.1.do_compile.ab12'));
    const next = await predictNextBuild({ scope: 'workdir', tmpdir, mountPath: join(tmpdir, 'work') });
    expect(next).toMatchObject({ state: 'stale-stamps', stamps: 1 });
    expect(next.text).toContain(`Delete ${join(tmpdir, 'stamps')} before the next build`);
  });
});

describe('revert after apply → build', () => {
  it('reports rambake-keep/ and the next build, in the report and the text', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const bd = await loadBuildDir({ buildDir: ex.topdir, sources: { getvar: false, eventlog: false } });
    const ram = join(ex.topdir, 'tmp-ram');
    await applyPlan(
      bd,
      {
        tmpfs: { path: ram, size: 16 * 2 ** 20, nrInodes: 2000, scope: 'tmpdir' },
        conf: [`TMPDIR = "${ram}"`, 'DEPLOY_DIR = "${TOPDIR}/rambake-keep/deploy"'],
        mount: { source: tmpfsSourceName(ex.topdir), options: ['size=16m', 'nr_inodes=2000'] },
      },
      { isRoot: false },
    );
    keepAfterTwoBuilds(ex.topdir);

    const report = await revertApply(ex.topdir, { isRoot: false });
    expect(report.kept.map((k) => k.kind)).toEqual(['images', 'deploy', 'buildstats', 'console-logs']);
    // The sample build's TMPDIR (${TOPDIR}/tmp) never existed: a fresh TMPDIR.
    expect(report.nextBuild).toMatchObject({ tmpdir: join(ex.topdir, 'tmp'), state: 'empty' });

    const text = renderRevert(report);
    const at = text.indexOf("the RAM builds' output, kept on disk (BitBake no longer writes there):");
    expect(at).toBeGreaterThan(0);
    expect(text[at + 1]).toMatch(
      new RegExp(
        `^  images {14}${join(ex.topdir, 'rambake-keep/deploy/images')}  \\d+(\\.\\d+)? KiB \\(1 machine\\)$`,
      ),
    );
    expect(text[at + 3]).toMatch(/^ {2}buildstats {10}\S+ {2,}\S+ \S+ \(2 builds\)$/);
    expect(text[at + 4]).toMatch(/^ {2}console logs {8}\S+ {2,}\S+ \S+ \(2 logs\)$/);
    expect(text[at + 5]).toMatch(/^ {2}before a later rambake apply, move rambake-keep\/deploy aside/);
    expect(text).toContain(`next build: ${report.nextBuild?.text}`);
  });

  it('without a state file: only what rambake-keep/ holds, no guess about the next build', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    keepAfterTwoBuilds(ex.topdir);
    const report = await revertApply(ex.topdir, { isRoot: false });
    expect(report.hadState).toBe(false);
    expect(report.kept).toHaveLength(4);
    expect(report.nextBuild).toBeUndefined();
  });
});
