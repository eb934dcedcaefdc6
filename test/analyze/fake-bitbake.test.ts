// churn and space on real builds of the fake BitBake (test/fake-bitbake): the `churn`
// scenario's three rm_work builds and the `version-bump` scenario's two.

import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { collectChurn } from '../../src/analyze/churn-read.js';
import { collectSpace } from '../../src/analyze/space-read.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, FAKE_BIN } from '../helpers/exec.js';
import { confOnly } from './helpers.js';

const cleanups = cleanupsAfterEach();

async function bitbake(topdir: string, scenario: string): Promise<void> {
  await execa('bitbake', ['core-image-minimal'], {
    cwd: topdir,
    env: { PATH: `${FAKE_BIN}:${process.env.PATH}`, FAKE_BITBAKE_SCENARIO: scenario },
  });
  // BUILDNAME has one-second resolution: the next build must get a folder of its own.
  await sleep(1100);
}

async function duBytes(path: string): Promise<number> {
  const { stdout } = await execa('du', ['-sB1', path]);
  return Number(stdout.split('\t')[0]);
}

describe('fake BitBake, churn scenario (three builds with rm_work)', () => {
  it('finds zlib redundant in builds 2 and 3, recurring, and the write setscene tasks of build 2', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    appendFileSync(join(ex.topdir, 'conf', 'local.conf'), 'INHERIT += "rm_work"\n');
    for (let i = 0; i < 3; i++) await bitbake(ex.topdir, 'churn');
    const report = await collectChurn(confOnly(ex.topdir), { builds: 3 });
    expect(report.builds).toHaveLength(3);
    const [b1, b2, b3] = report.builds;
    expect(b1!.redundant).toEqual([]);
    expect(b1!.sstate).toMatchObject({ local: 0, current: 0 });
    // busybox is in the sample build's RM_WORK_EXCLUDE: its do_package stamps survive.
    expect(b2!.redundant.map((r) => r.pf)).toEqual(['zlib-1.3.1-r0']);
    expect(b3!.redundant.map((r) => r.pf)).toEqual(['zlib-1.3.1-r0']);
    expect(b3!.redundant[0]!.wchar).toBeGreaterThan(0);
    expect(b3!.redundant[0]!.packagesSplitLeft).toBe(true);
    expect(b3!.redundant[0]!.cause?.detail).toBe('no sstate object in SSTATE_DIR for do_package_qa');
    expect(report.recurring).toMatchObject([{ pn: 'zlib', builds: [b2!.name, b3!.name] }]);
    // Once per recipe rm_work cleaned in build 1, and never again.
    const written = b2!.writeSetsceneAfterRmWork.map((w) => w.pn);
    expect(written).toContain('zlib');
    expect(written).not.toContain('busybox');
    expect(b3!.writeSetsceneAfterRmWork).toEqual([]);
    expect(b2!.sstate!.local).toBeGreaterThan(0);
    expect(report.churn).toBe(true);
  }, 120_000);
});

describe('fake BitBake, version-bump scenario', () => {
  it('space totals equal du -sB1; --save then --compare shows netbase 6.5 → 6.6 and the stale 6.5', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    const saved = join(ex.root, 'scan-1.json');
    await bitbake(ex.topdir, 'version-bump');
    const first = await collectSpace(confOnly(ex.topdir), { save: saved });
    const tmp = join(ex.topdir, 'tmp');
    expect(first.report.tmpdir.bytes).toBe(await duBytes(tmp));
    expect(JSON.parse(readFileSync(saved, 'utf8')).tmpdir.bytes).toBe(first.report.tmpdir.bytes);
    for (const r of first.report.recipes) {
      expect(r.uniqueBytes + r.sharedBytes).toBe(r.bytes);
      expect(r.bytes).toBe(await duBytes(r.workdir));
    }
    // Target recipes' sysroots are hard-linked from sysroots-components.
    expect(first.report.recipes.some((r) => r.sharedBytes > 0)).toBe(true);

    await bitbake(ex.topdir, 'version-bump');
    const second = await collectSpace(confOnly(ex.topdir), { compare: saved, pns: ['netbase'] });
    expect(second.report.tmpdir.bytes).toBe(await duBytes(tmp));
    expect(second.report.recipes.map((r) => r.pv).sort()).toEqual(['6.5', '6.6']);
    expect(second.report.stale).toMatchObject([{ pn: 'netbase', pv: '6.5', why: 'older PV beside 6.6' }]);
    const netbase = second.comparison!.recipes;
    expect(netbase).toHaveLength(1);
    expect(netbase[0]).toMatchObject({ pn: 'netbase', pvBefore: ['6.5'], pvAfter: ['6.5', '6.6'] });
    expect(netbase[0]!.growth).toBeGreaterThan(0);
    expect(netbase[0]!.growth).toBe(netbase[0]!.after - netbase[0]!.before);
  }, 120_000);
});
