// rambake's reading and rambake's main action, checked against the real BitBake 2.15.2:
// - `status --no-bitbake` (rambake's own evaluation) gives BitBake's values on build dirs where
//   the order of files decides (a hard TMPDIR in local.conf, a distro that sets paths, ?= and
//   ??= chains);
// - after `apply`, `bitbake -e` shows every variable of the block in effect (a plain
//   `TMPDIR =` in local.conf, or a distro's, no longer wins), and `revert` gives the conf back
//   byte for byte with BitBake on the old values.

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { BUILD_VARS } from '../../src/bitbake/builddir-types.js';
import { ROOT, runRambake } from '../helpers/exec.js';
import { bitbakeE, bitbakeEnv, describeReal, makeConfigBuildDir, realCleanup, realTree } from './harness.js';

const DISTRO_LAYER = resolve(ROOT, 'test', 'fixtures', 'real', 'meta-rambake-distro');
const isRoot = process.getuid?.() === 0;

/** The paths and settings rambake reports, compared with BitBake's (not those BitBake computes in Python). */
const COMPARED = BUILD_VARS.filter(
  (v) =>
    !['TOPDIR', 'BB_NUMBER_THREADS', 'PARALLEL_MAKE', 'BB_SCHEDULER', 'INHERIT', 'BB_HASHSERVE'].includes(v),
);

const CASES: Record<string, { local: string; auto?: string; distroLayer?: boolean }> = {
  'a hard TMPDIR in local.conf beats auto.conf': {
    local: 'MACHINE = "qemux86-64"\nDISTRO = "poky"\nTMPDIR = "${TOPDIR}/tmp"\nBB_NUMBER_THREADS = "3"\n',
    auto: 'TMPDIR = "${TOPDIR}/tmp-auto"\nDEPLOY_DIR = "${TOPDIR}/deploy-auto"\n',
  },
  'a distro that sets paths after local.conf': {
    local: 'MACHINE = "qemux86"\nDISTRO = "pathy"\nTMPDIR = "${TOPDIR}/tmp-local"\n',
    distroLayer: true,
  },
  '?= and ??= chains, += over a weak default': {
    local:
      'MACHINE ??= "qemuarm"\nMACHINE ??= "qemux86-64"\nDL_DIR ?= "${TOPDIR}/dl-first"\nDL_DIR ?= "${TOPDIR}/dl-second"\n' +
      'SSTATE_DIR ??= "${TOPDIR}/weak-sstate"\nDEPLOY_DIR = "${TMPDIR}/deploy-x"\nTMPDIR ?= "${TOPDIR}/ignored"\n' +
      'BB_DISKMON_DIRS ??= "WARN,${TMPDIR},1G,1K"\nBB_DISKMON_DIRS += "STOPTASKS,${DL_DIR},1G,1K"\n',
  },
};

async function buildDir(c: { local: string; auto?: string; distroLayer?: boolean }): Promise<string> {
  const tree = await realTree();
  return makeConfigBuildDir({
    local: c.local,
    ...(c.auto ? { auto: c.auto } : {}),
    ...(c.distroLayer ? { extraLayers: [DISTRO_LAYER] } : {}),
    layers: [join(tree, 'meta'), join(tree, 'meta-poky'), join(tree, 'meta-yocto-bsp')],
  });
}

async function envFor(): Promise<Record<string, string>> {
  const env = bitbakeEnv(await realTree());
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

describeReal('status against bitbake -e', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(name, { timeout: 120_000 }, async () => {
      const topdir = await buildDir(c);
      const truth = await bitbakeE(topdir);
      if (!truth.ok) throw new Error(`bitbake -e failed: ${truth.stderr || truth.stdout}`);
      const r = await runRambake(['-B', topdir, '--no-bitbake', '--json', 'status'], { env: await envFor() });
      expect(r.exitCode, r.stderr).toBe(0);
      const vars = JSON.parse(r.stdout).vars as Record<string, { value?: string; needsBitBake?: boolean }>;
      const differ = COMPARED.filter((v) => vars[v]?.value !== truth.vars.get(v)).map(
        (v) =>
          `${v}: rambake ${JSON.stringify(vars[v]?.value)}, BitBake ${JSON.stringify(truth.vars.get(v))}`,
      );
      expect(differ).toEqual([]);
    });
  }
});

describeReal('apply takes effect in BitBake, revert restores it', () => {
  for (const [name, c] of Object.entries(CASES).slice(0, 2)) {
    it.skipIf(!isRoot)(
      `${name}: every variable of the block is BitBake's after apply`,
      { timeout: 300_000 },
      async () => {
        const topdir = await buildDir(c);
        const env = await envFor();
        const ram = join(topdir, 'ram');
        const before = await bitbakeE(topdir);
        if (!before.ok) throw new Error(before.stderr);
        const auto = join(topdir, 'conf', 'auto.conf');
        const autoBefore = existsSync(auto) ? readFileSync(auto) : undefined;
        const localBefore = readFileSync(join(topdir, 'conf', 'local.conf'));
        // The harness removes the build dir after the test: unmount first (cleanups run newest first).
        realCleanup(async () => {
          await runRambake(['-B', topdir, '--no-bitbake', 'revert'], { env });
        });

        const applied = await runRambake(['-B', topdir, '--json', 'apply', '--path', ram, '--size', '512m'], {
          env,
          timeout: 180_000,
        });
        expect(applied.exitCode, applied.stderr).toBe(0);
        const report = JSON.parse(applied.stdout);
        expect(report.effect.bitbake.confirmed, JSON.stringify(report.effect)).toBe(true);
        const after = await bitbakeE(topdir);
        if (!after.ok) throw new Error(after.stderr);
        expect(after.vars.get('TMPDIR')).toBe(ram);
        expect(after.vars.get('DEPLOY_DIR')).toBe(join(topdir, 'rambake-keep', 'deploy'));
        expect(after.vars.get('BUILDSTATS_BASE')).toBe(join(topdir, 'rambake-keep', 'buildstats/'));
        expect(after.vars.get('INHERIT')?.split(/\s+/)).toContain('rm_work');
        expect(after.vars.get('BB_DISKMON_DIRS')).toMatch(new RegExp(`^STOPTASKS,${ram},`));
        const blockThreads = /BB_NUMBER_THREADS(:forcevariable)? = "(\d+)"/.exec(readFileSync(auto, 'utf8'));
        if (blockThreads) expect(after.vars.get('BB_NUMBER_THREADS')).toBe(blockThreads[2]);

        const reverted = await runRambake(['-B', topdir, '--json', 'revert'], { env, timeout: 150_000 });
        expect(reverted.exitCode, reverted.stderr).toBe(0);
        expect(readFileSync(join(topdir, 'conf', 'local.conf')).equals(localBefore)).toBe(true);
        if (autoBefore) expect(readFileSync(auto).equals(autoBefore)).toBe(true);
        else expect(existsSync(auto)).toBe(false);
        const back = await bitbakeE(topdir);
        if (!back.ok) throw new Error(back.stderr);
        for (const v of ['TMPDIR', 'DEPLOY_DIR', 'BUILDSTATS_BASE', 'BB_DISKMON_DIRS', 'BB_NUMBER_THREADS'])
          expect(back.vars.get(v), v).toBe(before.vars.get(v));
      },
    );
  }
});
