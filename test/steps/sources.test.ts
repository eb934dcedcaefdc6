// One task graph, three sources: a sato-like build of the fake BitBake recorded with
// `rambake run`, then `steps` answered from `bitbake -g` (the fake on PATH), from the recorded
// run's task events (no bitbake on PATH) and from buildstats (the run's task events removed):
// the same steps in the same order. A recipe of the build that does not need the giants gets
// none of them before it from bitbake -g; the recorded build of the image cannot say what that
// recipe needs, so without bitbake -g it is no answer but one line, exit 2 (sources-recipe.test.ts
// has a recorded build of the recipe itself, where every source agrees). A target the build
// never ran is exit 2, for steps and for plan --predict.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposeSteps } from '../../src/plan/steps.js';
import { runRambake } from '../helpers/exec.js';
import { devShmIsTmpfs, type FakeBuild, isRoot, makeFakeBuild } from '../predict/fake-build.js';

const TARGET = 'core-image-sato';
const usable = isRoot() || devShmIsTmpfs();

describe.skipIf(!usable)('steps from each graph source on the fake sato-like build', () => {
  let b: FakeBuild;
  const withBitbake = () => ({ ...b.env });
  const withoutBitbake = () => ({ ...b.env, PATH: '/usr/bin:/bin' });
  const load = (env: Record<string, string>) => ({
    buildDir: b.topdir,
    env,
    sources: { getvar: false, eventlog: false },
  });
  const runsDir = () => path.join(b.topdir, 'rambake', 'runs');

  beforeAll(async () => {
    b = makeFakeBuild(4, 'sato-like');
    // Slow enough for the watcher's 50 ms samples to catch webkitgtk's work dir on a busy CI
    // host: at 0.002 its peak was missed in 2 of 3 CI runs on 12-05 (never in 5 runs alone).
    const env = { ...b.env, FAKE_BITBAKE_TIME_SCALE: '0.006', FAKE_BITBAKE_SIZE_SCALE: '0.002' };
    const r = await runRambake(
      ['-B', b.topdir, '--json', 'run', '--ignore-doctor', '--interval', '0.05', '--', 'bitbake', TARGET],
      { env, timeout: 300_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
  }, 300_000);
  afterAll(() => b?.cleanup(), 60_000);

  it('gives the same steps from the dot graph, the recorded run and buildstats', async () => {
    const dot = await proposeSteps(load(withBitbake()), [TARGET]);
    const recorded = await proposeSteps(load(withoutBitbake()), [TARGET]);
    expect(dot.graph).toBe('task-depends.dot');
    expect(recorded.graph).toBe('recorded');
    expect(dot.steps).toContain('webkitgtk');
    expect(recorded.steps).toEqual(dot.steps);

    // The same run without its task events: the graph comes from the buildstats it covered.
    const [file] = fs.readdirSync(runsDir());
    const full = path.join(runsDir(), file!);
    const text = fs.readFileSync(full, 'utf8');
    const noEvents = text
      .split('\n')
      .filter((l) => !/"type":"task-(start|end)"/.test(l))
      .join('\n');
    fs.writeFileSync(full, noEvents);
    try {
      const buildstats = await proposeSteps(load(withoutBitbake()), [TARGET]);
      expect(buildstats.graph).toBe('buildstats');
      expect(buildstats.steps).toEqual(dot.steps);
    } finally {
      fs.writeFileSync(full, text);
    }
  }, 120_000);

  it('without a recorded run, buildstats and the event log name the build: its known giants are steps', async () => {
    const aside = `${runsDir()}.aside`;
    fs.renameSync(runsDir(), aside);
    try {
      const p = await proposeSteps(load(withoutBitbake()), [TARGET]);
      expect(p.graph).toBe('buildstats');
      // No size without a run: the known giants of the build, never a recipe it does not need.
      expect(p.steps).toContain('webkitgtk');
      expect(p.reasons[0]?.text).toMatch(/known giant/);
      expect(p.notes.join('\n')).not.toMatch(/targets are not known/);
    } finally {
      fs.renameSync(aside, runsDir());
    }
  }, 120_000);

  it('puts before a recipe of the build only what it needs; a build of other targets gives no answer for it', async () => {
    // zlib needs the cross compiler and glibc, not webkitgtk: the dot graph says which.
    const dot = await proposeSteps(load(withBitbake()), ['zlib']);
    expect(dot.graph).toBe('task-depends.dot');
    expect(dot.steps).not.toContain('webkitgtk');
    expect(dot.steps.length).toBeGreaterThan(0);
    const { stdout } = await runRambake(['-B', b.topdir, '--json', 'plan', '--predict', '--target', 'zlib'], {
      env: withBitbake(),
    });
    const predicted = JSON.parse(stdout).prediction;
    expect(predicted.targets).toEqual(['zlib']);
    // The recorded run (and its buildstats) built core-image-sato: which of its recipes zlib
    // needs is not known there, so neither answers; steps and --predict say so, exit 2.
    for (const args of [
      ['steps', 'zlib'],
      ['plan', '--predict', '--target', 'zlib'],
    ]) {
      const r = await runRambake(['-B', b.topdir, ...args], { env: withoutBitbake() });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^rambake: no task graph covers zlib \(the recorded run .* built core-image-sato: .*; buildstats .* built core-image-sato: .*\): with bitbake on PATH .* bitbake -g zlib .*rambake run -- bitbake zlib$/m,
      );
      expect(r.stderr).not.toMatch(/no step needed/);
    }
  }, 120_000);

  it('a target the build never ran is exit 2, one line, for steps and for plan --predict', async () => {
    for (const env of [withBitbake(), withoutBitbake()]) {
      for (const args of [
        ['steps', 'no-such-recipe'],
        ['plan', '--predict', '--target', 'no-such-recipe'],
      ]) {
        const r = await runRambake(['-B', b.topdir, ...args], { env });
        expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(/no-such-recipe is not in (this|the) build/);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr.trim().split('\n')[0]).toMatch(/^rambake: /);
      }
    }
  }, 120_000);
});
