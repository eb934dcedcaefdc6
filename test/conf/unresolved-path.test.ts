// A path rambake cannot resolve (Python, a relative path) is marked and listed by loadBuildDir,
// and doctor's checks do not judge bitbake.conf's default folder in its place: the same facts
// that give a finding for a resolved path give none for an unresolved one, and doctor says why.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadBuildDir } from '../../src/bitbake/builddir.js';
import type { BuildDir } from '../../src/bitbake/builddir-types.js';
import { checkHazards } from '../../src/doctor/hazards.js';
import type { BuildFacts, MountFacts, PathKey } from '../../src/plan/facts-types.js';
import { desktopHost } from '../helpers/host.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/conf');
const load = (name: string) =>
  loadBuildDir({
    buildDir: path.join(fixtures, name, 'build'),
    env: { HOME: '/home/u' },
    sources: { getvar: false, eventlog: false },
  });

const disk: MountFacts = { id: 1, mountPoint: '/', fsType: 'ext4', source: '/dev/vda', options: ['rw'] };
const ram: MountFacts = { id: 7, mountPoint: '/mnt/ram', fsType: 'tmpfs', source: 'r', options: ['rw'] };

/** Every path on disk but DL_DIR and SSTATE_DIR, which are on a tmpfs (a warning when known). */
function facts(bd: BuildDir): BuildFacts {
  const paths = {} as BuildFacts['paths'];
  for (const key of Object.keys(bd.paths) as PathKey[]) {
    const onRam = key === 'dlDir' || key === 'sstateDir';
    paths[key] = { path: bd.paths[key], exists: true, mount: onRam ? ram : disk };
  }
  return {
    host: { ...desktopHost },
    paths,
    tmp: disk,
  };
}

const inTmpfs = (bd: BuildDir) =>
  checkHazards(bd, facts(bd))
    .filter((f) => f.id === 'persistent-dir-in-tmpfs')
    .map((f) => f.message.split(' ')[0]);

describe('unresolved paths in doctor', () => {
  it('checks resolved paths on the facts given', async () => {
    const bd = await load('dl-dir-question-equals-works');
    expect(bd.paths.dlDir).toBe('/srv/downloads');
    expect(inTmpfs(bd)).toEqual(['DL_DIR', 'SSTATE_DIR']);
    expect(checkHazards(bd, facts(bd)).some((f) => f.id === 'path-unresolved')).toBe(false);
  });

  it('skips the checks of an unresolved path and says so, with the variable and file:line', async () => {
    const bd = await load('sstate-dir-python-unresolved');
    expect(inTmpfs(bd)).toEqual([]);
    const local = path.join(bd.topdir, 'conf', 'local.conf');
    const found = checkHazards(bd, facts(bd)).filter((f) => f.id === 'path-unresolved');
    expect(found).toEqual([
      expect.objectContaining({ severity: 'warning', file: local, line: 4 }),
      expect.objectContaining({ severity: 'warning', file: local, line: 3 }),
    ]);
    expect(found[1]?.message).toBe(
      `SSTATE_DIR = "\${@os.path.join(d.getVar('TOPDIR'), 'elsewhere')}" cannot be resolved without BitBake (it holds Python only BitBake evaluates): the file-system checks for SSTATE_DIR are skipped (bitbake.conf's default ${path.join(bd.topdir, 'sstate-cache')} is not looked at in its place)`,
    );
    expect(found[0]?.message).toMatch(/^DL_DIR = "relative\/downloads" .*it is not an absolute path/);
    expect(found[0]?.fix).toBe('write DL_DIR as an absolute path');
  });

  it('an unresolved TMPDIR: no check judges the default folder (noexec, saved_tmpdir, bad path)', async () => {
    const bd = await load('sstate-dir-python-unresolved');
    const tmpdirPython: BuildDir = {
      ...bd,
      vars: { ...bd.vars, TMPDIR: { value: '${@"/x"}', source: 'conf', needsBitBake: true } },
      unresolvedPaths: [
        ...(bd.unresolvedPaths ?? []),
        { key: 'tmpdir', variable: 'TMPDIR', value: '${@"/x"}', python: true, assumed: bd.paths.tmpdir },
      ],
    };
    const f = facts(tmpdirPython);
    f.paths.tmpdir = { ...f.paths.tmpdir, mount: { ...disk, options: ['rw', 'noexec'] } };
    f.savedTmpdir = '/elsewhere/tmp';
    const ids = checkHazards(tmpdirPython, f).map((x) => x.id);
    expect(ids).not.toContain('tmpdir-noexec');
    expect(ids).not.toContain('tmpdir-moved');
    expect(ids).not.toContain('tmpdir-bad-path');
    // The same facts for a resolved TMPDIR give both.
    const known = checkHazards(bd, f).map((x) => x.id);
    expect(known).toEqual(expect.arrayContaining(['tmpdir-noexec', 'tmpdir-moved']));
  });
});
