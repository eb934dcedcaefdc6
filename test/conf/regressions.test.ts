// The named regression fixtures: each is a build dir whose local.conf real users had and
// rambake read wrongly. The same fixtures run against the real BitBake in
// test/real/conf-differential.test.ts.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertReadable, loadBuildDir } from '../../src/bitbake/builddir.js';
import { ConfSyntaxError } from '../../src/errors.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/conf');
const load = (name: string, env: NodeJS.ProcessEnv = { HOME: '/home/u' }) =>
  loadBuildDir({
    buildDir: path.join(fixtures, name, 'build'),
    env,
    sources: { getvar: false, eventlog: false },
  });
const errors = (bd: Awaited<ReturnType<typeof load>>) => bd.diagnostics.filter((d) => d.severity === 'error');

describe('regression fixtures', () => {
  it('arm-machine-python-block: an ARM machine reads, its python block marks what it sets', async () => {
    const bd = await load('arm-machine-python-block');
    expect(errors(bd)).toEqual([]);
    expect(bd.machine).toBe('qemuarm64');
    const data = bd.getVar('AFTER_PYTHON');
    expect(data.value).toBe('read');
    const tune = bd.getVar('TUNE_CCARGS');
    expect(tune).toMatchObject({ value: ' -march=armv8-a', needsBitBake: true });
    expect(tune.note).toMatch(/anonymous Python at .*thumb-check\.inc:5$/);
    expect(bd.getVar('thumb_suffix').value).toContain('def thumb_suffix(d):');
  });

  it('env-home-in-sstate-dir: ${HOME} expands from the environment', async () => {
    const bd = await load('env-home-in-sstate-dir', { HOME: '/home/builder', EDITOR: 'vi' });
    expect(bd.vars.SSTATE_DIR).toMatchObject({
      value: '/home/builder/.cache/sstate-cache',
      source: 'conf',
      line: 2,
    });
    expect(bd.paths.sstateDir).toBe('/home/builder/.cache/sstate-cache');
  });

  it('renamed-variable-license-flags-whitelist: an error in BitBake words, file:line', async () => {
    const bd = await load('renamed-variable-license-flags-whitelist');
    expect(errors(bd)).toMatchObject([
      {
        code: 'renamed-variable',
        message: 'Variable LICENSE_FLAGS_WHITELIST has been renamed to LICENSE_FLAGS_ACCEPTED',
        file: path.join(bd.topdir, 'conf', 'local.conf'),
        line: 3,
      },
    ]);
    expect(() => assertReadable(bd)).toThrow(ConfSyntaxError);
  });

  it('old-syntax-append-pn: the fix offered is the form BitBake applies', async () => {
    const bd = await load('old-syntax-append-pn');
    expect(errors(bd)).toMatchObject([
      { code: 'old-override-syntax', line: 3, expected: 'PACKAGECONFIG:append:pn-qemu-native = " sdl"' },
    ]);
  });

  it('python-default-threads: user Python keeps its file:line and is marked, not replaced', async () => {
    const bd = await load('python-default-threads');
    const local = path.join(bd.topdir, 'conf', 'local.conf');
    expect(bd.vars.BB_NUMBER_THREADS).toEqual({
      value: '${@oe.utils.cpu_count()}',
      source: 'conf',
      file: local,
      line: 2,
      needsBitBake: true,
    });
    expect(bd.vars.PARALLEL_MAKE).toMatchObject({ source: 'conf', line: 3, needsBitBake: true });
  });

  it('a path rambake cannot resolve is marked, listed and noted, not taken as the default', async () => {
    const bd = await load('env-home-in-sstate-dir', {});
    // No HOME passed: SSTATE_DIR stays "${HOME}/…", not an absolute path.
    expect(bd.vars.SSTATE_DIR).toMatchObject({
      value: '${HOME}/.cache/sstate-cache',
      source: 'conf',
      line: 2,
      needsBitBake: true,
    });
    expect(bd.unresolvedPaths).toEqual([
      {
        key: 'sstateDir',
        variable: 'SSTATE_DIR',
        value: '${HOME}/.cache/sstate-cache',
        file: path.join(bd.topdir, 'conf', 'local.conf'),
        line: 2,
        python: false,
        assumed: path.join(bd.topdir, 'sstate-cache'),
      },
    ]);
    expect(bd.notes).toContain(
      'SSTATE_DIR is not an absolute path (${HOME}/.cache/sstate-cache): not resolved; its file-system checks are skipped',
    );
  });

  it('sstate-dir-python-unresolved: Python and a relative path are both unresolved', async () => {
    const bd = await load('sstate-dir-python-unresolved');
    expect(bd.vars.SSTATE_DIR).toMatchObject({ source: 'conf', line: 3, needsBitBake: true });
    expect(bd.vars.DL_DIR).toMatchObject({ value: 'relative/downloads', line: 4, needsBitBake: true });
    expect(bd.unresolvedPaths?.map((u) => [u.variable, u.python])).toEqual([
      ['DL_DIR', false],
      ['SSTATE_DIR', true],
    ]);
    // A resolved build lists none.
    expect((await load('dl-dir-question-equals-works')).unresolvedPaths).toEqual([]);
  });
});
