// The sampler's scan budget: busy work dirs are rescanned only while all scans stay within
// their share of a core; a dir that just finished is sized even when the budget is spent, after
// a grace in which do_rm_work, when it starts, sizes it instead.

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
  it('stops rescanning busy dirs when the budget is spent, sizes a finished one after its grace even then, and resumes later', async () => {
    // Every reading of the clock moves it 100 ms: each scan "takes" 100 ms.
    let now = 0;
    const sampler = new Sampler(root, 2000, () => {
      now += 100;
      return now;
    });
    const states = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    const busy = Array.from({ length: 30 }, (_, i) => `core2-64-poky-linux/busy${i}/1.0`);
    for (const key of busy) sampler.markDirty(key, workdir(key.split('/')[1]!));
    const done = 'core2-64-poky-linux/done/1.0';
    sampler.markDirty(done, workdir('done'), 'waiting-rm-work');

    // What each sample measured is in the fill history.
    const measured = () => sampler.history.at(-1)?.workdirs ?? {};
    await sampler.sample(states, false);
    const sized = Object.keys(measured());
    // Within its grace (five intervals) the finished dir waits for do_rm_work to size it.
    expect(sized).not.toContain(done);
    // A 1 s allowance at 100 ms a scan: about ten, not thirty.
    expect(sized.length).toBeGreaterThan(3);
    expect(sized.length).toBeLessThan(15);

    // Its grace over, the budget still spent (10 s at 0.25 % of a core is 25 ms): sized alone.
    now += 10_000;
    await sampler.sample(states, false);
    expect(Object.keys(measured())).toEqual([done]);
    expect(measured()[done]).toBeGreaterThanOrEqual(8192);

    // Twenty minutes on: three more seconds of scans, enough for the rest.
    now += 20 * 60 * 1000;
    await sampler.sample(states, false);
    expect(Object.keys(measured()).length + sized.length + 1).toBe(31);
  });

  it('leaves a finished dir to do_rm_work within its grace: one scan, as do_rm_work starts', async () => {
    const sampler = new Sampler(root, 2000);
    const states = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    const key = 'core2-64-poky-linux/quick/1.0';
    const dir = workdir('quick');
    sampler.markDirty(key, dir, 'waiting-rm-work');
    await sampler.sample(states, false);
    expect(sampler.scans).toBe(0);
    await sampler.measureNow(key, dir, states);
    expect(sampler.bytes.get(key)).toBeGreaterThanOrEqual(8192);
    // The grace is dropped with the scan: later samples do not size it again.
    await sampler.sample(states, false);
    expect(sampler.scans).toBe(1);
  });

  it('sizes everything when asked to, whatever the budget', async () => {
    let now = 0;
    const sampler = new Sampler(root, 2000, () => (now += 1000));
    for (let i = 0; i < 10; i++) sampler.markDirty(`core2-64-poky-linux/w${i}/1.0`, workdir(`w${i}`));
    await sampler.sample(new WorkdirStates({ rmWork: true, rmWorkExclude: [] }), true);
    expect(Object.keys(sampler.history.at(-1)?.workdirs ?? {})).toHaveLength(10);
  });

  it('as do_rm_work starts, sizes the dir again even when a sample sized it after its last other task', async () => {
    // 2 ms intervals: the grace of a finished dir is over in 10 ms.
    const sampler = new Sampler(root, 2);
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
    task('task-end', 'do_compile');
    sampler.markDirty(key, dir, 'waiting-rm-work');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await sampler.sample(states, false);
    const sized = sampler.bytes.get(key)!;
    const scans = sampler.scans;
    // On the real BitBake a dir still grew after that (12-06: 64 KiB of a native recipe).
    writeFileSync(join(dir, 'late'), Buffer.alloc(65536, 1));
    task('task-start', 'do_rm_work');
    expect((await sampler.measureNow(key, dir, states))?.workdirs[key]).toBe(sized + 65536);
    expect(sampler.scans).toBe(scans + 1);
  });
});
