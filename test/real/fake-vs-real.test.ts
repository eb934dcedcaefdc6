// The fake BitBake's own conf reading, checked against the real BitBake 2.15.2: for build dirs
// where the order of files and operators decides, the fake's `bitbake -e` must give the values
// the real `bitbake -e` gives for the paths and settings the fake builds with. (The fake never
// asks rambake; this is what keeps it honest.)

import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/exec.js';
import {
  bitbakeE,
  bitbakeEnv,
  describeReal,
  makeConfigBuildDir,
  parseBitbakeE,
  realTree,
} from './harness.js';

const FAKE_BITBAKE = join(ROOT, 'test', 'fake-bitbake', 'bin', 'bitbake');
const DISTRO_LAYER = resolve(ROOT, 'test', 'fixtures', 'real', 'fake-vs-real');

const COMPARED = [
  'TMPDIR',
  'STAMPS_DIR',
  'BASE_WORKDIR',
  'DEPLOY_DIR',
  'LOG_DIR',
  'BUILDSTATS_BASE',
  'SSTATE_MANIFESTS',
  'DL_DIR',
  'SSTATE_DIR',
  'BB_NUMBER_THREADS',
  'BB_DISKMON_DIRS',
  'BB_SCHEDULER',
];

interface Case {
  local: string;
  auto?: string;
  site?: string;
  toolcfg?: string;
  distroLayer?: boolean;
  /** Values the case is about, so a test that passes by both sides being wrong the same way is caught. */
  expect: Record<string, (topdir: string) => string | undefined>;
}

const CASES: Record<string, Case> = {
  'a hard TMPDIR in local.conf beats auto.conf; site < auto < toolcfg < local': {
    site: 'SSTATE_DIR = "${TOPDIR}/sstate-site"\nDL_DIR = "${TOPDIR}/dl-site"\n',
    auto: 'TMPDIR = "${TOPDIR}/tmp-auto"\nDEPLOY_DIR = "${TOPDIR}/deploy-auto"\nSSTATE_DIR = "${TOPDIR}/sstate-auto"\n',
    toolcfg: 'SSTATE_DIR = "${TOPDIR}/sstate-toolcfg"\n',
    local: 'MACHINE = "qemux86-64"\nDISTRO = "poky"\nTMPDIR = "${TOPDIR}/tmp"\nBB_NUMBER_THREADS = "3"\n',
    expect: {
      TMPDIR: (t) => `${t}/tmp`,
      DEPLOY_DIR: (t) => `${t}/deploy-auto`,
      SSTATE_DIR: (t) => `${t}/sstate-toolcfg`,
      DL_DIR: (t) => `${t}/dl-site`,
    },
  },
  ':forcevariable in auto.conf beats a plain = in local.conf': {
    auto: 'TMPDIR:forcevariable = "${TOPDIR}/tmp-forced"\nBUILDSTATS_BASE:forcevariable = "${TOPDIR}/buildstats-kept"\n',
    local: 'MACHINE = "qemux86-64"\nTMPDIR = "${TOPDIR}/tmp"\nBUILDSTATS_BASE = "${TOPDIR}/lost"\n',
    expect: {
      TMPDIR: (t) => `${t}/tmp-forced`,
      STAMPS_DIR: (t) => `${t}/tmp-forced/stamps`,
      BUILDSTATS_BASE: (t) => `${t}/buildstats-kept`,
    },
  },
  '?= and ??= chains, += over a weak default, rm_work': {
    local: [
      'MACHINE ??= "qemuarm"',
      'MACHINE ??= "qemux86-64"',
      'DL_DIR ?= "${TOPDIR}/dl-first"',
      'DL_DIR ?= "${TOPDIR}/dl-second"',
      'SSTATE_DIR ??= "${TOPDIR}/weak-1"',
      'SSTATE_DIR ??= "${TOPDIR}/weak-2"',
      'TMPDIR ?= "${TOPDIR}/ignored"',
      'BB_NUMBER_THREADS ??= "7"',
      'BB_DISKMON_DIRS ??= "WARN,${TMPDIR},1G,1K"',
      'BB_DISKMON_DIRS += "STOPTASKS,${DL_DIR},1G,1K"',
      'INHERIT += "rm_work"',
      '',
    ].join('\n'),
    expect: {
      DL_DIR: (t) => `${t}/dl-first`,
      // bitbake.conf's SSTATE_DIR ?= comes after local.conf and ignores the weak default
      SSTATE_DIR: (t) => `${t}/sstate-cache`,
      TMPDIR: (t) => `${t}/tmp`,
      BB_DISKMON_DIRS: (t) => ` STOPTASKS,${t}/dl-first,1G,1K`,
      BB_SCHEDULER: () => 'completion',
    },
  },
  'DEPLOY_DIR, LOG_DIR, SSTATE_MANIFESTS and BUILDSTATS_BASE relocated': {
    local: [
      'MACHINE = "qemux86-64"',
      'DEPLOY_DIR = "/srv/keep/deploy"',
      'LOG_DIR = "/srv/keep/log"',
      'SSTATE_MANIFESTS = "/srv/keep/sstate-control"',
      'BUILDSTATS_BASE:forcevariable = "/srv/keep/buildstats"',
      'INHERIT += "rm_work"',
      'BB_SCHEDULER = "speed"',
      '',
    ].join('\n'),
    expect: {
      DEPLOY_DIR: () => '/srv/keep/deploy',
      LOG_DIR: () => '/srv/keep/log',
      SSTATE_MANIFESTS: () => '/srv/keep/sstate-control',
      BUILDSTATS_BASE: () => '/srv/keep/buildstats',
      BB_SCHEDULER: () => 'speed',
    },
  },
  'a distro conf that sets paths wins over local.conf': {
    local:
      'MACHINE = "qemux86-64"\nDISTRO = "relocating"\nTMPDIR = "${TOPDIR}/tmp-local"\nSSTATE_DIR ?= "${TOPDIR}/sstate-local"\n',
    distroLayer: true,
    expect: {
      TMPDIR: (t) => `${t}/tmp-distro`,
      DEPLOY_DIR: (t) => `${t}/deploy-distro`,
      SSTATE_DIR: (t) => `${t}/sstate-local`,
      BB_DISKMON_DIRS: (t) => `STOPTASKS,${t}/tmp-distro,1G,100K HALT,${t}/tmp-distro,100M,1K`,
    },
  },
};

/** The fake's `bitbake -e` in the same build dir, with the same environment as the real one. */
async function fakeBitbakeE(topdir: string, env: NodeJS.ProcessEnv) {
  const r = await execa(process.execPath, [FAKE_BITBAKE, '-e'], {
    cwd: topdir,
    env,
    extendEnv: false,
    reject: false,
  });
  expect(r.stderr).toBe('');
  expect(r.exitCode).toBe(0);
  return parseBitbakeE(r.stdout);
}

const rmWorkWords = (v: string | undefined) => (v ?? '').split(/\s+/).filter((w) => w.includes('rm_work'));

describeReal('the fake BitBake reads conf files as the real one does', () => {
  for (const [name, c] of Object.entries(CASES)) {
    it(name, async () => {
      const tree = await realTree();
      const topdir = await makeConfigBuildDir({
        local: c.local,
        ...(c.auto !== undefined ? { auto: c.auto } : {}),
        ...(c.site !== undefined ? { site: c.site } : {}),
        ...(c.toolcfg !== undefined ? { toolcfg: c.toolcfg } : {}),
        ...(c.distroLayer ? { extraLayers: [DISTRO_LAYER] } : {}),
      });
      const env = bitbakeEnv(tree);
      const real = await bitbakeE(topdir, { env });
      if (!real.ok)
        throw new Error(`real bitbake -e failed (${real.exitCode}):\n${real.stdout}\n${real.stderr}`);
      const fake = await fakeBitbakeE(topdir, env);
      const pick = (vars: Map<string, string>) =>
        Object.fromEntries([
          ...COMPARED.map((v) => [v, vars.get(v)]),
          ['INHERIT (rm_work words)', rmWorkWords(vars.get('INHERIT'))],
        ]);
      expect(pick(fake.vars)).toEqual(pick(real.vars));
      for (const [v, want] of Object.entries(c.expect)) expect(real.vars.get(v), v).toBe(want(topdir));
      expect(fake.exported.has('HOME')).toBe(real.exported.has('HOME'));
    }, 180_000);
  }
});
