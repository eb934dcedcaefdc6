import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApplyPlan, applyPlan } from '../../src/apply/apply.js';
import { readApplyState, statePath } from '../../src/apply/conf-write.js';
import { revertApply } from '../../src/apply/revert.js';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import type { BuildDir } from '../../src/bitbake/builddir-types.js';
import { UnsafeEditError } from '../../src/errors.js';
import { BLOCK_BEGIN } from '../../src/plan/managed-block.js';
import { mountArgv, tmpfsSourceName, umountArgv } from '../../src/plan/mount-commands.js';
import { lockHeld } from '../../src/system/bitbake-lock.js';
import { mountTmpfs, unmountTmpfs } from '../../src/system/tmpfs.js';
import { copyExample } from '../helpers/exec.js';

let ex: ReturnType<typeof copyExample>;
let bd: BuildDir;
beforeEach(async () => {
  ex = copyExample();
  bd = await loadBuildDir({ buildDir: ex.topdir, sources: { getvar: false, eventlog: false } });
});
afterEach(() => ex.cleanup());

/** A plan like sizing.ts makes, small enough to mount anywhere. */
function testPlan(path = join(ex.topdir, 'tmp-ram'), scope: 'tmpdir' | 'workdir' = 'tmpdir'): ApplyPlan {
  return {
    tmpfs: { path, size: 16 * 2 ** 20, nrInodes: 2000, scope },
    conf:
      scope === 'tmpdir'
        ? [`TMPDIR = "${path}"`, 'INHERIT += "rm_work"', 'DEPLOY_DIR = "${TOPDIR}/rambake-keep/deploy"']
        : ['INHERIT += "rm_work"'],
    mount: {
      source: tmpfsSourceName(ex.topdir),
      options: ['size=16m', 'nr_inodes=2000', 'mode=0755', 'uid=0', 'gid=0', 'noatime'],
    },
  };
}

const snapshot = (file: string) => ({ bytes: readFileSync(file), mtime: statSync(file).mtimeMs });

describe('apply and revert, without mounting (not root)', () => {
  it('--dry-run prints the diff and the commands and changes nothing', async () => {
    const local = join(ex.topdir, 'conf', 'local.conf');
    const before = snapshot(local);
    const report = await applyPlan(bd, testPlan(), { conf: 'local', dryRun: true, isRoot: false });
    expect(report.conf.diff).toContain(`+${BLOCK_BEGIN}`);
    expect(report.conf.diff).toContain(`--- ${local}`);
    expect(report.mount.status).toBe('planned');
    expect(report.mount.commands.join('\n')).toContain('sudo mount -t tmpfs -o size=16m,nr_inodes=2000');
    expect(snapshot(local)).toEqual(before);
    expect(existsSync(statePath(ex.topdir))).toBe(false);
    expect(existsSync(join(ex.topdir, 'conf', 'auto.conf'))).toBe(false);
  });

  it('creates conf/auto.conf, changes nothing the second time, and revert deletes only that file', async () => {
    const auto = join(ex.topdir, 'conf', 'auto.conf');
    const local = snapshot(join(ex.topdir, 'conf', 'local.conf'));
    const first = await applyPlan(bd, testPlan(), { isRoot: false });
    expect(first.conf).toMatchObject({ file: auto, creates: true, changed: true });
    expect(first.mount.status).toBe('commands');
    expect(first.mount.commands[0]).toBe(`sudo mkdir -p ${join(ex.topdir, 'tmp-ram')}`);
    expect(readFileSync(auto, 'utf8')).toContain(`TMPDIR = "${join(ex.topdir, 'tmp-ram')}"`);
    expect(await readApplyState(ex.topdir)).toMatchObject({ conf: { file: auto, existed: false } });

    const once = snapshot(auto);
    const second = await applyPlan(bd, testPlan(), { isRoot: false });
    expect(second.conf.changed).toBe(false);
    expect(snapshot(auto)).toEqual(once);

    const reverted = await revertApply(ex.topdir, { isRoot: false });
    expect(reverted.conf).toMatchObject({ file: auto, deleted: true });
    expect(existsSync(auto)).toBe(false);
    expect(existsSync(statePath(ex.topdir))).toBe(false);
    expect(snapshot(join(ex.topdir, 'conf', 'local.conf'))).toEqual(local);
  });

  it('reverts local.conf byte for byte, keeping edits made outside the block since', async () => {
    const local = join(ex.topdir, 'conf', 'local.conf');
    const original = readFileSync(local, 'latin1');
    const report = await applyPlan(bd, testPlan(), { conf: 'local', isRoot: false });
    expect(report.conf.backup).toBe(`${local}.rambake-bak`);
    writeFileSync(local, `# edited after apply\n${readFileSync(local, 'latin1')}`, 'latin1');
    const reverted = await revertApply(ex.topdir, { isRoot: false });
    expect(readFileSync(local, 'latin1')).toBe(`# edited after apply\n${original}`);
    expect(reverted.conf?.backupKept).toBe(`${local}.rambake-bak`);
  });

  it('drops the backup when the reverted file equals it', async () => {
    const local = join(ex.topdir, 'conf', 'local.conf');
    const original = readFileSync(local);
    await applyPlan(bd, testPlan(), { conf: 'local', isRoot: false });
    await revertApply(ex.topdir, { isRoot: false });
    expect(readFileSync(local).equals(original)).toBe(true);
    expect(existsSync(`${local}.rambake-bak`)).toBe(false);
  });

  it('refuses to revert a hand-edited block without --force', async () => {
    const auto = join(ex.topdir, 'conf', 'auto.conf');
    await applyPlan(bd, testPlan(), { isRoot: false });
    writeFileSync(auto, readFileSync(auto, 'utf8').replace('rm_work', 'rm_work buildhistory'));
    const edited = readFileSync(auto);
    await expect(revertApply(ex.topdir, { isRoot: false })).rejects.toThrow(UnsafeEditError);
    expect(readFileSync(auto).equals(edited)).toBe(true);
    await expect(applyPlan(bd, testPlan(), { isRoot: false })).rejects.toThrow(/edited by hand/);
    await revertApply(ex.topdir, { isRoot: false, force: true });
    expect(existsSync(auto)).toBe(false);
  });

  it('refuses a site.conf that is a symlink to a shared one', async () => {
    const shared = join(ex.root, 'shared-site.conf');
    writeFileSync(shared, 'SSTATE_DIR = "/srv/sstate"\n');
    symlinkSync(shared, join(ex.topdir, 'conf', 'site.conf'));
    await expect(applyPlan(bd, testPlan(), { conf: 'site', isRoot: false })).rejects.toThrow(/shared/);
    expect(readFileSync(shared, 'utf8')).toBe('SSTATE_DIR = "/srv/sstate"\n');
  });

  it('--conf kas gives a local_conf_header snippet and writes no conf file', async () => {
    const report = await applyPlan(bd, testPlan(), { conf: 'kas', isRoot: false });
    expect(report.conf.kas).toContain('local_conf_header:\n  rambake: |\n    TMPDIR = ');
    expect(report.conf.changed).toBe(false);
    expect(existsSync(join(ex.topdir, 'conf', 'auto.conf'))).toBe(false);
  });

  it('writes the systemd unit under its escaped name with --unit-file DIR', async () => {
    const units = join(ex.root, 'units');
    mkdirSync(units);
    const report = await applyPlan(bd, testPlan('/mnt/rambake/tmp'), { isRoot: false, unitFile: units });
    expect(report.mount.unitFile?.name).toBe('mnt-rambake-tmp.mount');
    const text = readFileSync(join(units, 'mnt-rambake-tmp.mount'), 'utf8');
    expect(text).toContain(`What=${tmpfsSourceName(ex.topdir)}\nWhere=/mnt/rambake/tmp\nType=tmpfs\n`);
    await expect(
      applyPlan(bd, testPlan('/mnt/rambake/tmp'), { isRoot: false, unitFile: join(units, 'x.mount') }),
    ).rejects.toThrow(/mnt-rambake-tmp\.mount/);
  });

  it('--dry-run says what the real run would refuse: a mount point that holds files', async () => {
    const full = join(ex.topdir, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'data');
    const report = await applyPlan(bd, testPlan(full), { dryRun: true, isRoot: false });
    expect(report.notes.join('\n')).toMatch(/full is not empty/);
  });

  it('refuses while a build holds bitbake.lock (a real flock, as BitBake takes it), not for a stale file', async () => {
    const lock = join(ex.topdir, 'bitbake.lock');
    writeFileSync(lock, '');
    const load = () => loadBuildDir({ buildDir: ex.topdir, sources: { getvar: false, eventlog: false } });
    const holder = spawn('flock', ['--no-fork', lock, 'sleep', '30'], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 50 && !lockHeld(ex.topdir); i++) await new Promise((r) => setTimeout(r, 50));
      const running = await load();
      await expect(applyPlan(running, testPlan(), { isRoot: false })).rejects.toThrow(/build is running/);
    } finally {
      holder.kill();
      await once(holder, 'exit');
    }
    const stale = await load();
    expect(stale.buildRunning).toBe(false);
    expect(stale.notes).toContain('stale bitbake.lock (no PID in it, no lock on it): ignored');
  });

  it('workdir scope: states the costs, sized from sysroots-components', async () => {
    const components = join(ex.topdir, 'tmp', 'sysroots-components', 'x86_64', 'zlib-native');
    mkdirSync(components, { recursive: true });
    writeFileSync(join(components, 'libz.so'), Buffer.alloc(64 * 1024));
    const report = await applyPlan(bd, testPlan(join(ex.topdir, 'tmp', 'work'), 'workdir'), {
      dryRun: true,
      isRoot: false,
    });
    expect(report.workdirCosts?.componentsBytes).toBeGreaterThanOrEqual(64 * 1024);
    expect(report.workdirCosts?.text.join('\n')).toMatch(/copy[\s\S]*stamps/);
    expect(report.conf.diff).not.toContain('TMPDIR =');
  });

  it('workdir scope: refuses a work folder that holds work dirs, saying stamps must go too', async () => {
    mkdirSync(join(ex.topdir, 'tmp', 'work', 'core2-64-poky-linux', 'zlib'), { recursive: true });
    const plan = testPlan(join(ex.topdir, 'tmp', 'work'), 'workdir');
    const dry = await applyPlan(bd, plan, { dryRun: true, isRoot: false });
    expect(dry.notes.join('\n')).toMatch(/stamps/);
    await expect(applyPlan(bd, plan, { isRoot: false })).rejects.toThrow(/only go on an empty one/);
  });
});

const isRoot = process.getuid?.() === 0;
const rootIt = isRoot ? it : it.skip;
const ROOT_REASON = isRoot ? '' : ' (skipped: needs root to mount tmpfs)';

function mountinfoLine(path: string): string | undefined {
  const escaped = path.replace(/[ \t\n\\]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .find((l) => l.split(' ')[4] === escaped);
}

describe(`apply and revert as root, with a real tmpfs${ROOT_REASON}`, () => {
  afterEach(() => {
    // A failed test must not leave mounts behind.
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const point = line.split(' ')[4];
      if (point?.startsWith(ex.root)) execFileSync('umount', ['-l', point.replace(/\\040/g, ' ')]);
    }
  });

  rootIt(
    'mounts with size and nr_inodes, never noexec, and revert unmounts and removes the folder',
    async () => {
      const path = join(ex.topdir, 'tmp-ram');
      mkdirSync(join(ex.topdir, 'tmp'));
      writeFileSync(join(ex.topdir, 'tmp', 'saved_tmpdir'), 'x'.repeat(5000));
      const report = await applyPlan(bd, testPlan(path), {});
      expect(report.mount).toMatchObject({ status: 'mounted', createdFolder: true });
      const line = mountinfoLine(path);
      expect(line).toMatch(new RegExp(` - tmpfs ${tmpfsSourceName(ex.topdir)} .*size=16384k,nr_inodes=2000`));
      expect(line).not.toContain('noexec');
      expect(statSync(path).mode & 0o777).toBe(0o755);

      const again = await applyPlan(bd, testPlan(path), {});
      expect(again.mount.status).toBe('already');

      const reverted = await revertApply(ex.topdir, {});
      expect(reverted.mount).toMatchObject({ status: 'unmounted', folderRemoved: true });
      expect(mountinfoLine(path)).toBeUndefined();
      expect(existsSync(path)).toBe(false);
      // The old TMPDIR on disk is reported, not removed.
      expect(reverted.leftOnDisk?.path).toBe(join(ex.topdir, 'tmp'));
      expect(reverted.leftOnDisk?.bytes).toBeGreaterThan(5000);
      expect(existsSync(join(ex.topdir, 'tmp', 'saved_tmpdir'))).toBe(true);
    },
  );

  rootIt(
    'a tmpfs the user mounted with the printed commands: revert prints sudo umount, or unmounts as root',
    async () => {
      const path = join(ex.topdir, 'tmp-ram');
      const report = await applyPlan(bd, testPlan(path), { isRoot: false });
      mkdirSync(path);
      execFileSync('sh', ['-c', report.mount.commands.at(-1)!.replace(/^sudo /, '')]);
      expect(mountinfoLine(path)).toContain(tmpfsSourceName(ex.topdir));
      const asUser = await revertApply(ex.topdir, { isRoot: false });
      expect(asUser.mount).toMatchObject({ status: 'commands', commands: [`sudo umount ${path}`] });
      expect(existsSync(statePath(ex.topdir))).toBe(true);
      const asRoot = await revertApply(ex.topdir, {});
      expect(asRoot.mount).toMatchObject({ status: 'unmounted', folderRemoved: false });
      expect(existsSync(path)).toBe(true);
      expect(existsSync(statePath(ex.topdir))).toBe(false);
    },
  );

  rootIt('refuses a folder that holds files, and one that is already a mount point', async () => {
    const full = join(ex.topdir, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'keep.txt'), 'data');
    await expect(applyPlan(bd, testPlan(full), {})).rejects.toThrow(/not empty/);
    expect(mountinfoLine(full)).toBeUndefined();

    const busy = join(ex.topdir, 'busy');
    mkdirSync(busy);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'someone-else', busy]);
    await expect(applyPlan(bd, testPlan(busy), {})).rejects.toThrow(/already a mount point/);
    expect(existsSync(join(ex.topdir, 'conf', 'auto.conf'))).toBe(false);
  });

  rootIt('passes a path with blanks, quotes and $(…) to mount and umount as one argv word', async () => {
    const path = join(ex.root, 'my build', "it's $(touch pwned) `id`");
    const spec = { source: 'rambake-test0002', path, options: ['size=1m', 'nr_inodes=100', 'mode=0755'] };
    const mounted = await mountTmpfs({ ...spec, argv: mountArgv(spec), sizeBytes: 2 ** 20 });
    expect(mounted.createdFolder).toBe(true);
    expect(mountinfoLine(path)).toContain(' - tmpfs rambake-test0002 ');
    await unmountTmpfs(path, umountArgv(path));
    expect(mountinfoLine(path)).toBeUndefined();
    expect(existsSync('pwned') || existsSync(join(ex.root, 'pwned'))).toBe(false);
  });

  rootIt('revert refuses while a process has a file open under the mount, naming it', async () => {
    const path = join(ex.topdir, 'tmp-ram');
    await applyPlan(bd, testPlan(path), {});
    const holder = execFileSync(
      'sh',
      ['-c', 'exec 3>"$1/held"; sleep 30 <&- >/dev/null 2>&1 & echo $!', 'sh', path],
      { encoding: 'utf8' },
    ).trim();
    try {
      await expect(revertApply(ex.topdir, {})).rejects.toThrow(new RegExp(`${holder} \\(sleep`));
      expect(mountinfoLine(path)).toBeDefined();
      expect(existsSync(join(ex.topdir, 'conf', 'auto.conf'))).toBe(true);
    } finally {
      process.kill(Number(holder), 'SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 100));
    await revertApply(ex.topdir, {});
    expect(mountinfoLine(path)).toBeUndefined();
  });
});
