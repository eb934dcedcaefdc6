// rambake's reading and rambake's main action, checked against the real BitBake 2.15.2:
// - `status --no-bitbake` (rambake's own evaluation) gives BitBake's values on build dirs where
//   the order of files decides (a hard TMPDIR in local.conf, a distro that sets paths, ?= and
//   ??= chains);
// - after `apply`, `bitbake -e` shows every variable of the block in effect (a plain
//   `TMPDIR =` in local.conf, or a distro's, no longer wins; lowered threads beat local.conf's),
//   and `revert` gives the conf back byte for byte with BitBake on the old values;
// - what cannot be beaten is refused with the line that wins: an `:append` in local.conf (BitBake
//   applies it on top of :forcevariable), and an override only BitBake sees (Python in OVERRIDES),
//   which only BitBake's answer after the write shows: then the build dir is left as it was.

import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
        expectLogsAndDiskmon(topdir, ram, readFileSync(auto, 'utf8'), after.vars);
        // 512 MiB lowers no threads on any machine: BitBake keeps the build's own.
        expect(readFileSync(auto, 'utf8')).not.toMatch(/^(BB_NUMBER_THREADS|PARALLEL_MAKE)/m);
        expect(after.vars.get('BB_NUMBER_THREADS')).toBe(before.vars.get('BB_NUMBER_THREADS'));

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

/** The block's value of `name` (plain or :forcevariable) as written in `text`. */
function blockValue(text: string, name: string): string {
  const m = new RegExp(`^${name}(?::forcevariable)? = "(.*)"$`, 'm').exec(text);
  if (!m) throw new Error(`no ${name} line in the block:\n${text}`);
  return m[1]!;
}

/** The logs kept under rambake-keep, and the disk monitor exactly as the block writes it. */
function expectLogsAndDiskmon(topdir: string, ram: string, block: string, vars: Map<string, string>): void {
  const machine = vars.get('MACHINE') ?? '';
  // DATETIME: BitBake's own time of the read, 14 digits.
  expect(vars.get('BB_CONSOLELOG')).toMatch(
    new RegExp(`^${reEscape(join(topdir, 'rambake-keep', 'log', 'cooker', machine))}/\\d{14}\\.log$`),
  );
  expect(vars.get('BB_DEFAULT_EVENTLOG')).toMatch(
    new RegExp(`^${reEscape(join(topdir, 'rambake-keep', 'log', 'eventlog'))}/\\d{14}\\.json$`),
  );
  const diskmon = blockValue(block, 'BB_DISKMON_DIRS')
    .replaceAll('${DL_DIR}', vars.get('DL_DIR') ?? '?')
    .replaceAll('${SSTATE_DIR}', vars.get('SSTATE_DIR') ?? '?');
  expect(diskmon).toMatch(new RegExp(`^STOPTASKS,${reEscape(ram)},`));
  expect(vars.get('BB_DISKMON_DIRS')).toBe(diskmon);
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** MemTotal in bytes: a tmpfs that large leaves no room for the compilers, so the plan lowers threads. */
function memTotal(): number {
  const kib = /^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'));
  return Number(kib?.[1]) * 1024;
}

describeReal('apply: what BitBake honours, and what it refuses', () => {
  // Half the CPUs is the floor: one CPU leaves nothing to lower.
  it.skipIf(!isRoot || availableParallelism() < 2)(
    'lowered BB_NUMBER_THREADS and PARALLEL_MAKE beat the hard ones in local.conf',
    { timeout: 300_000 },
    async () => {
      const topdir = await buildDir({
        local:
          'MACHINE = "qemux86-64"\nDISTRO = "poky"\nTMPDIR = "${TOPDIR}/tmp"\nBB_NUMBER_THREADS = "4"\nPARALLEL_MAKE = "-j 4"\n',
      });
      const env = await envFor();
      const ram = join(topdir, 'ram');
      realCleanup(async () => {
        await runRambake(['-B', topdir, '--no-bitbake', 'revert'], { env });
      });
      // size= is only a cap: nothing is written into it but what bitbake -e leaves.
      const size = `${Math.floor(memTotal() / 2 ** 20)}m`;
      const applied = await runRambake(
        ['-B', topdir, '--json', 'apply', '--path', ram, '--size', size, '--allow-oversized-tmpfs'],
        { env, timeout: 180_000 },
      );
      expect(applied.exitCode, applied.stderr).toBe(0);
      expect(JSON.parse(applied.stdout).effect.bitbake.confirmed).toBe(true);
      const block = readFileSync(join(topdir, 'conf', 'auto.conf'), 'utf8');
      const threads = blockValue(block, 'BB_NUMBER_THREADS');
      const make = blockValue(block, 'PARALLEL_MAKE');
      expect(Number(threads)).toBeLessThan(4);
      expect(make).toMatch(/^-j \d+$/);
      expect(block).toContain(`BB_NUMBER_THREADS:forcevariable = "${threads}"`);
      const after = await bitbakeE(topdir);
      if (!after.ok) throw new Error(after.stderr);
      expect(after.vars.get('BB_NUMBER_THREADS')).toBe(threads);
      expect(after.vars.get('PARALLEL_MAKE')).toBe(make);
      expect(after.vars.get('TMPDIR')).toBe(ram);
      expectLogsAndDiskmon(topdir, ram, block, after.vars);
    },
  );

  it('refuses an :append in local.conf, which BitBake applies even over :forcevariable, naming it', {
    timeout: 180_000,
  }, async () => {
    const local = 'MACHINE = "qemux86-64"\nDISTRO = "poky"\nTMPDIR = "${TOPDIR}/tmp"\nTMPDIR:append = "-x"\n';
    const topdir = await buildDir({ local });
    const ram = join(topdir, 'ram');
    // What BitBake does with the strongest line rambake could write.
    const auto = join(topdir, 'conf', 'auto.conf');
    writeFileSync(auto, `TMPDIR:forcevariable = "${ram}"\n`);
    const forced = await bitbakeE(topdir);
    if (!forced.ok) throw new Error(forced.stderr);
    expect(forced.vars.get('TMPDIR')).toBe(`${ram}-x`);
    rmSync(auto);

    const r = await runRambake(['-B', topdir, 'apply', '--path', ram, '--size', '512m'], {
      env: await envFor(),
      timeout: 120_000,
    });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('rambake:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `${join(topdir, 'conf', 'local.conf')}:4 appends "-x" to TMPDIR after rambake's block`,
    );
    expect(existsSync(auto)).toBe(false);
    expect(existsSync(join(topdir, 'rambake', 'state.json'))).toBe(false);
  });

  it.skipIf(!isRoot)(
    "refuses what only BitBake's answer shows (Python in OVERRIDES), naming the line, and leaves the build dir as it was",
    { timeout: 300_000 },
    async () => {
      const topdir = await buildDir({
        local:
          'MACHINE = "qemux86-64"\nDISTRO = "poky"\nOVERRIDES .= ":${@\'myovr\'}"\nTMPDIR:myovr = "${TOPDIR}/tmp-ovr"\n',
      });
      const env = await envFor();
      const ram = join(topdir, 'ram');
      const localConf = join(topdir, 'conf', 'local.conf');
      realCleanup(async () => {
        await runRambake(['-B', topdir, '--no-bitbake', 'revert'], { env });
      });
      const conf = () =>
        Object.fromEntries(
          readdirSync(join(topdir, 'conf')).map((f) => [f, readFileSync(join(topdir, 'conf', f), 'latin1')]),
        );
      const before = conf();
      const r = await runRambake(
        ['-B', topdir, 'apply', '--conf', 'local', '--path', ram, '--size', '512m'],
        {
          env,
          timeout: 180_000,
        },
      );
      expect(r.exitCode, r.stdout).toBe(1);
      const lines = r.stderr.split('\n').filter((l) => l.startsWith('rambake:'));
      expect(lines).toEqual([
        `rambake: BitBake does not use the block: TMPDIR is "${topdir}/tmp-ovr" (the block says "${ram}"): ${localConf}:4 sets TMPDIR: ${localConf} restored, nothing changed`,
      ]);
      // Byte for byte, and no backup, lock or temp file beside them.
      expect(conf()).toEqual(before);
      expect(existsSync(join(topdir, 'rambake', 'state.json'))).toBe(false);
      expect(
        readFileSync('/proc/self/mountinfo', 'utf8')
          .split('\n')
          .some((l) => l.split(' ')[4] === ram),
      ).toBe(false);
      expect(existsSync(ram)).toBe(false);
    },
  );
});
