// The same target, the same answer from each graph source: a fresh sato-like build of the fake
// BitBake where `rambake run -- bitbake zlib` is recorded first, so the recorded run, its
// buildstats and buildstats alone each cover zlib, as `bitbake -g zlib` does: the same steps
// from all of them (measured sizes with the run; the known giants without it). Then an image
// build on top is recorded: it does not cover zlib, so the recorded source passes it over for
// the older run of zlib, and still gives bitbake -g's answer.

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proposeSteps } from '../../src/plan/steps.js';
import { runRambake } from '../helpers/exec.js';
import { devShmIsTmpfs, type FakeBuild, isRoot, makeFakeBuild } from '../predict/fake-build.js';

const usable = isRoot() || devShmIsTmpfs();

describe.skipIf(!usable)('steps for a recipe from each graph source, where each covers it', () => {
  let b: FakeBuild;
  const scaled = () => ({ ...b.env, FAKE_BITBAKE_TIME_SCALE: '0.002', FAKE_BITBAKE_SIZE_SCALE: '0.002' });
  const withBitbake = () => ({ ...b.env });
  const withoutBitbake = () => ({ ...b.env, PATH: '/usr/bin:/bin' });
  const load = (env: Record<string, string>) => ({
    buildDir: b.topdir,
    env,
    sources: { getvar: false, eventlog: false },
  });
  const runsDir = () => path.join(b.topdir, 'rambake', 'runs');
  const record = async (target: string) => {
    const r = await runRambake(
      ['-B', b.topdir, '--json', 'run', '--ignore-doctor', '--interval', '0.05', '--', 'bitbake', target],
      { env: scaled(), timeout: 300_000 },
    );
    expect(r.exitCode, r.stderr).toBe(0);
  };

  beforeAll(async () => {
    b = makeFakeBuild(4, 'sato-like');
    await record('zlib');
  }, 300_000);
  afterAll(() => b?.cleanup(), 60_000);

  it('bitbake -g, the recorded run, its buildstats and buildstats alone give the same steps', async () => {
    const dot = await proposeSteps(load(withBitbake()), ['zlib']);
    expect(dot.graph).toBe('task-depends.dot');
    expect(dot.steps.length, JSON.stringify(dot)).toBeGreaterThan(0);
    expect(dot.steps).not.toContain('zlib');
    expect(dot.steps).not.toContain('webkitgtk');

    const recorded = await proposeSteps(load(withoutBitbake()), ['zlib']);
    expect(recorded.graph).toBe('recorded');
    expect(recorded.steps).toEqual(dot.steps);

    // The run without its task events: the buildstats of the build it covered.
    const [file] = fs.readdirSync(runsDir());
    const full = path.join(runsDir(), file!);
    const text = fs.readFileSync(full, 'utf8');
    fs.writeFileSync(
      full,
      text
        .split('\n')
        .filter((l) => !/"type":"task-(start|end)"/.test(l))
        .join('\n'),
    );
    try {
      const buildstats = await proposeSteps(load(withoutBitbake()), ['zlib']);
      expect(buildstats.graph).toBe('buildstats');
      expect(buildstats.steps).toEqual(dot.steps);
    } finally {
      fs.writeFileSync(full, text);
    }

    // No run: nothing sizes the recipes, so each source names the known giants zlib needs.
    const aside = `${runsDir()}.aside`;
    fs.renameSync(runsDir(), aside);
    try {
      const dotAlone = await proposeSteps(load(withBitbake()), ['zlib']);
      const alone = await proposeSteps(load(withoutBitbake()), ['zlib']);
      expect(alone.graph).toBe('buildstats');
      expect(dotAlone.steps.length).toBeGreaterThan(0);
      expect(alone.steps).toEqual(dotAlone.steps);
      expect(alone.reasons.every((r) => /known giant/.test(r.text))).toBe(true);
    } finally {
      fs.renameSync(aside, runsDir());
    }
  }, 120_000);

  it('a newer build of other targets is passed over for the older run that covers the target', async () => {
    const before = await proposeSteps(load(withBitbake()), ['zlib']);
    await record('core-image-sato');
    expect(fs.readdirSync(runsDir())).toHaveLength(2);
    const dot = await proposeSteps(load(withBitbake()), ['zlib']);
    const recorded = await proposeSteps(load(withoutBitbake()), ['zlib']);
    expect(dot.steps).toEqual(before.steps);
    expect(recorded.graph).toBe('recorded');
    expect(recorded.steps).toEqual(dot.steps);
    expect(recorded.notes.join('\n')).toMatch(/built core-image-sato: .*passed over/);
  }, 300_000);
});
