// The shims, spawned as a build would spawn them: `PATH=test/fake-bitbake/bin:$PATH bitbake …`
// in a miniature build dir. Needs `npm run build` (rambake's dist/ and the fake's dist/).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin');
let root: string;
let buildDir: string;

const run = (cmd: string, args: string[], env: Record<string, string> = {}) =>
  execa(path.join(bin, cmd), args, {
    cwd: buildDir,
    reject: false,
    env: { PATH: `${bin}:${process.env.PATH}`, NO_COLOR: '1', FAKE_BITBAKE_TIME_SCALE: '0', ...env },
    extendEnv: false,
  });

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-bitbake-cli-'));
  const layer = path.join(root, 'layers', 'meta');
  buildDir = path.join(root, 'build');
  fs.mkdirSync(path.join(layer, 'conf'), { recursive: true });
  fs.mkdirSync(path.join(buildDir, 'conf'), { recursive: true });
  fs.writeFileSync(
    path.join(layer, 'conf', 'layer.conf'),
    'BBPATH .= ":${LAYERDIR}"\nBBFILE_COLLECTIONS += "core"\nBBFILE_PRIORITY_core = "5"\n' +
      'LAYERSERIES_CORENAMES = "whinlatter"\nLAYERSERIES_COMPAT_core = "whinlatter"\n',
  );
  fs.writeFileSync(
    path.join(buildDir, 'conf', 'bblayers.conf'),
    `BBPATH = "\${TOPDIR}"\nBBLAYERS = "${layer}"\n`,
  );
  fs.writeFileSync(
    path.join(buildDir, 'conf', 'local.conf'),
    'MACHINE = "qemux86-64"\nBB_NUMBER_THREADS = "3"\nINHERIT += "rm_work"\nTMPDIR = "${TOPDIR}/tmp-glibc"\n',
  );
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bitbake shim', () => {
  it('builds into the configured TMPDIR, holds and releases bitbake.lock, counts builds', async () => {
    const r = await run('bitbake', ['core-image-minimal']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      /^NOTE: Tasks Summary: Attempted \d+ tasks of which 0 didn't need to be rerun and all succeeded\.$/m,
    );
    expect(
      fs.existsSync(path.join(buildDir, 'tmp-glibc', 'work', 'core2-64-poky-linux', 'zlib', '1.3.1', 'temp')),
    ).toBe(true);
    expect(fs.existsSync(path.join(buildDir, 'tmp'))).toBe(false);
    expect(fs.existsSync(path.join(buildDir, 'bitbake.lock'))).toBe(false);
    const state = JSON.parse(fs.readFileSync(path.join(buildDir, '.fake-bitbake-state.json'), 'utf8'));
    expect(state.builds).toBe(1);
  });

  it('-c compile -f re-runs a current task (.taint) and exits 1 with the scenario failure', async () => {
    const r = await run('bitbake', ['--scenario', 'fail', '-c', 'compile', '-f', 'busybox']);
    expect(r.exitCode).toBe(1);
    const stamps = fs.readdirSync(
      path.join(buildDir, 'tmp-glibc', 'stamps', 'core2-64-poky-linux', 'busybox'),
    );
    expect(stamps).toContain('1.37.0.do_compile.taint');
    expect(r.stdout).toMatch(
      /^ERROR: Task \(.+busybox_1\.37\.0\.bb:do_compile\) failed with exit code '1'$/m,
    );
  });

  it('-g writes pn-buildlist and task-depends.dot', async () => {
    const r = await run('bitbake', ['-g', 'zlib']);
    expect(r.exitCode).toBe(0);
    expect(fs.readFileSync(path.join(buildDir, 'pn-buildlist'), 'utf8').split('\n')).toContain('zlib');
    const dot = fs.readFileSync(path.join(buildDir, 'task-depends.dot'), 'utf8');
    expect(dot).toMatch(
      /^"zlib\.do_compile" \[label="zlib do_compile\\n:1\.3\.1-r0\\n\/.+\/zlib_1\.3\.1\.bb"\]$/m,
    );
    expect(dot).toMatch(/^"zlib\.do_compile" -> "zlib\.do_configure"$/m);
  });

  it('refuses to run while bitbake.lock is held', async () => {
    fs.writeFileSync(path.join(buildDir, 'bitbake.lock'), '1\n');
    const r = await run('bitbake', ['zlib']);
    fs.rmSync(path.join(buildDir, 'bitbake.lock'));
    expect(r.exitCode).toBe(1);
  });

  it('stops cleanly on SIGINT and removes the lock', async () => {
    // a fresh TMPDIR and an empty sstate cache: a long build
    fs.rmSync(path.join(buildDir, 'tmp-glibc'), { recursive: true, force: true });
    fs.rmSync(path.join(buildDir, 'sstate-cache'), { recursive: true, force: true });
    const child = run('bitbake', ['--scenario', 'small', '--build-number', '9', '--seed', '3'], {
      FAKE_BITBAKE_TIME_SCALE: '0.05',
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(fs.existsSync(path.join(buildDir, 'bitbake.lock'))).toBe(true);
    child.kill('SIGINT');
    const r = await child;
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^NOTE: Sending SIGTERM to remaining \d+ tasks$/m);
    expect(fs.existsSync(path.join(buildDir, 'bitbake.lock'))).toBe(false);
  });
});

describe('bitbake-getvar shim', () => {
  it('prints a value, or fails as upstream does for an undefined variable', async () => {
    const ok = await run('bitbake-getvar', ['--value', 'TMPDIR']);
    expect(ok.stdout).toBe(path.join(buildDir, 'tmp-glibc'));
    const bad = await run('bitbake-getvar', ['--value', 'NO_SUCH_VAR']);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe("The variable 'NO_SUCH_VAR' is not defined");
  });
});
