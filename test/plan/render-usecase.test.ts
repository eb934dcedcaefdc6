import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planOptions } from '../../src/cli/plan.js';
import { makePlan, planRamBuild } from '../../src/plan/sizing.js';
import { renderPlan } from '../../src/report/plan.js';
import { makeColors } from '../../src/text/format.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, ROOT } from '../helpers/exec.js';
import { GiB, makeBuildDir, makeFacts, makeHistory } from './fixture.js';

const cleanups = cleanupsAfterEach();

const plan32 = () =>
  planRamBuild({
    bd: makeBuildDir({ rmWorkExclude: ['busybox'] }),
    facts: makeFacts({ ram: 32 * GiB, swap: 16 * GiB, cpus: 8 }),
    history: makeHistory(),
    opts: { target: 'core-image-sato' },
    owner: { uid: 1000, gid: 1000 },
  });

describe('rendering', () => {
  it('prints the explained table, the reasons, the verdict and the conf lines (golden)', async () => {
    const text = `${renderPlan(plan32(), makeColors(false)).join('\n')}\n`;
    await expect(text).toMatchFileSnapshot('../fixtures/plan/golden/plan-32g-swap-sato.txt');
  });

  it('JSON is the RamPlan with the agreed fields', () => {
    const json = JSON.parse(JSON.stringify(plan32()));
    expect(json).toMatchObject({
      schemaVersion: 1,
      tmpfs: {
        path: expect.any(String),
        size: expect.any(Number),
        nrInodes: expect.any(Number),
        scope: 'tmpdir',
      },
      threads: { bbNumberThreads: expect.any(Number), parallelMake: expect.any(String) },
      diskmon: expect.stringMatching(/^STOPTASKS,/),
      conf: expect.arrayContaining([expect.stringMatching(/^TMPDIR = "/)]),
      mount: { source: expect.stringMatching(/^rambake-/), options: expect.any(Array) },
      verdict: { fits: true, inSteps: true, text: expect.any(String) },
    });
    for (const r of json.reasons)
      expect(Object.keys(r).every((k) => ['topic', 'text', 'figures'].includes(k))).toBe(true);
  });
});

describe('plan flags', () => {
  it('takes sizes, scope and target as the option table parsed them', () => {
    expect(
      planOptions({ ram: 32 * GiB, size: 24 * GiB, scope: 'workdir', target: 'world', path: '/x' }),
    ).toEqual({
      ram: 32 * GiB,
      size: 24 * GiB,
      scope: 'workdir',
      target: 'world',
      path: '/x',
    });
  });
});

describe('makePlan on the sample build', () => {
  it('loads the build, the host and the history, and plans for the build user', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const load = { buildDir: ex.topdir, sources: { getvar: false, eventlog: false } };
    const p = await makePlan(load, { ram: 64 * GiB });
    expect(p.topdir).toBe(ex.topdir);
    expect(p.tmpfs.path).toBe(join(ex.topdir, 'tmp-ram'));
    expect(p.conf[0]).toBe(`TMPDIR = "${join(ex.topdir, 'tmp-ram')}"`);
    expect(p.rmWorkExclude.map((x) => x.pn)).toEqual(['busybox']);
    expect(p.mount.options).toContain(`uid=${statSync(ex.topdir).uid}`);
    expect(p.sources.history).toBe(false);

    const runs = join(ex.topdir, 'rambake', 'runs');
    mkdirSync(runs, { recursive: true });
    const fixture = join(ROOT, 'test/fixtures/plan/history-killed-watcher-torn-line/build/rambake/runs');
    copyFileSync(join(fixture, '20251130T142627.jsonl'), join(runs, '20251130T142627.jsonl'));
    const measured = await makePlan(load, { ram: 64 * GiB, path: 'ram' });
    expect(measured.sources).toMatchObject({ history: true, runs: 1 });
    expect(measured.need.bytes).toBe(Math.ceil(7.5 * GiB * 1.2));
    expect(measured.tmpfs.path).toBe(join(process.cwd(), 'ram'));
  });
});
