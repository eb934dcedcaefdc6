// The sampler's scan budget: busy work dirs are rescanned only while all scans stay within
// their share of a core; a dir that just finished is sized even when the budget is spent.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Sampler } from '../../src/watch/sampler.js';
import { WorkdirStates } from '../../src/watch/states.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rambake-sampler-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function workdir(name: string): string {
  const dir = join(root, 'work', 'core2-64-poky-linux', name, '1.0');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'file'), Buffer.alloc(8192, 1));
  return dir;
}

describe('Sampler scan budget', () => {
  it('stops rescanning busy dirs when the budget is spent, but sizes a finished one, and resumes later', async () => {
    // Every reading of the clock moves it 100 ms: each scan "takes" 100 ms.
    let now = 0;
    const sampler = new Sampler(root, 2000, () => {
      now += 100;
      return now;
    });
    const states = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    const busy = Array.from({ length: 30 }, (_, i) => `core2-64-poky-linux/busy${i}/1.0`);
    for (const key of busy) sampler.markDirty(key, workdir(key.split('/')[1]!));
    sampler.markDirty('core2-64-poky-linux/done/1.0', workdir('done'), 'waiting-rm-work');

    // What each sample measured is in the fill history.
    const measured = () => sampler.history.at(-1)?.workdirs ?? {};
    await sampler.sample(states, false);
    const sized = Object.keys(measured());
    expect(sized).toContain('core2-64-poky-linux/done/1.0');
    expect(measured()['core2-64-poky-linux/done/1.0']).toBeGreaterThanOrEqual(8192);
    // A 1 s allowance at 100 ms a scan: about ten, not thirty.
    expect(sized.length).toBeGreaterThan(3);
    expect(sized.length).toBeLessThan(15);

    // Twenty minutes on at 0.25 % of a core: three more seconds of scans, enough for the rest.
    now += 20 * 60 * 1000;
    await sampler.sample(states, false);
    expect(Object.keys(measured()).length + sized.length).toBe(31);
  });

  it('sizes everything when asked to, whatever the budget', async () => {
    let now = 0;
    const sampler = new Sampler(root, 2000, () => (now += 1000));
    for (let i = 0; i < 10; i++) sampler.markDirty(`core2-64-poky-linux/w${i}/1.0`, workdir(`w${i}`));
    await sampler.sample(new WorkdirStates({ rmWork: true, rmWorkExclude: [] }), true);
    expect(Object.keys(sampler.history.at(-1)?.workdirs ?? {})).toHaveLength(10);
  });

  it('as do_rm_work starts, reuses the size taken once every other task had ended, and only then', async () => {
    const sampler = new Sampler(root, 2000);
    const states = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    const key = 'core2-64-poky-linux/zlib/1.0';
    const dir = workdir('zlib');
    const task = (kind: 'task-start' | 'task-end', name: string) =>
      states.apply({
        kind,
        t: Date.now(),
        pn: 'zlib',
        pv: '1.0',
        arch: 'core2-64-poky-linux',
        task: name,
        setscene: false,
        ok: true,
      });
    task('task-start', 'do_compile');
    sampler.markDirty(key, dir, 'active');
    await sampler.sample(states, false);
    task('task-end', 'do_compile');
    // Became waiting-rm-work after that scan: the size as do_rm_work starts is measured.
    sampler.markDirty(key, dir, 'waiting-rm-work');
    writeFileSync(join(dir, 'package'), Buffer.alloc(16384, 1));
    task('task-start', 'do_rm_work');
    const first = await sampler.measureNow(key, dir, states);
    expect(first?.workdirs[key]).toBeGreaterThanOrEqual(16384 + 8192);
    const scans = sampler.scans;

    // Waiting again, sized by a sample; do_rm_work's own log comes after: that size stands.
    task('task-end', 'do_rm_work');
    task('task-start', 'do_package');
    task('task-end', 'do_package');
    await new Promise((resolve) => setTimeout(resolve, 5));
    sampler.markDirty(key, dir, 'waiting-rm-work');
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sampler.sample(states, false);
    const sized = sampler.bytes.get(key);
    writeFileSync(join(dir, 'log.do_rm_work'), Buffer.alloc(4096, 1));
    task('task-start', 'do_rm_work');
    expect((await sampler.measureNow(key, dir, states))?.workdirs[key]).toBe(sized);
    expect(sampler.scans).toBe(scans + 1);

    // Another task of the recipe running beside it: measured again.
    task('task-start', 'do_deploy');
    expect((await sampler.measureNow(key, dir, states))?.workdirs[key]).toBe(sized! + 4096);
  });
});
