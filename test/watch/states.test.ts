import { describe, expect, it } from 'vitest';
import { classifyFound, deliverablesDone, workdirOfPath } from '../../src/watch/classify.js';
import { type StateChange, type StateInput, WorkdirStates } from '../../src/watch/states.js';

const TARGET = 'core2-64-poky-linux';
const id = (pn: string, pv: string, arch = TARGET) => ({ key: `${arch}/${pn}/${pv}`, arch, pn, pv });
let clock = 0;
const start = (pn: string, pv: string, task: string, setscene = false, arch = TARGET): StateInput => ({
  kind: 'task-start',
  t: ++clock,
  pn,
  pv,
  arch,
  task,
  setscene,
});
const end = (
  pn: string,
  pv: string,
  task: string,
  ok = true,
  setscene = false,
  arch = TARGET,
): StateInput => ({
  kind: 'task-end',
  t: ++clock,
  pn,
  pv,
  arch,
  task,
  setscene,
  ok,
});

function run(states: WorkdirStates, inputs: StateInput[]): StateChange[] {
  return inputs.flatMap((i) => states.apply(i));
}
const stateOf = (s: WorkdirStates, key: string) => s.entries.get(key)?.state;
const recipe = (pn: string, pv: string, tasks: string[], arch = TARGET) =>
  tasks.flatMap((t) => [start(pn, pv, t, false, arch), end(pn, pv, t, true, false, arch)]);
const PACKAGED = [
  'do_compile',
  'do_install',
  'do_package',
  'do_packagedata',
  'do_package_write_ipk',
  'do_package_qa',
];

describe('WorkdirStates', () => {
  it('walks a target recipe through active, waiting-rm-work and cleaned', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [{ kind: 'build-start', t: 0 }, start('zlib', '1.3.1', 'do_compile')]);
    expect(stateOf(s, id('zlib', '1.3.1').key)).toBe('active');
    run(s, [end('zlib', '1.3.1', 'do_compile')]);
    expect(s.entries.get(id('zlib', '1.3.1').key)?.reason).toBe('between tasks');
    run(s, recipe('zlib', '1.3.1', PACKAGED.slice(1)));
    expect(stateOf(s, id('zlib', '1.3.1').key)).toBe('waiting-rm-work');
    const changes = run(s, recipe('zlib', '1.3.1', ['do_rm_work']));
    expect(changes.map((c) => c.state)).toEqual(['active', 'cleaned']);
  });

  it('native recipes wait for rm_work after do_populate_sysroot', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, recipe('m4-native', '1.4.20', ['do_install', 'do_populate_sysroot'], 'x86_64-linux'));
    expect(stateOf(s, 'x86_64-linux/m4-native/1.4.20')).toBe('waiting-rm-work');
  });

  it('keeps kernels and RM_WORK_EXCLUDE recipes as excluded, by name or by kernel task', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: ['busybox'] });
    run(s, [
      ...recipe('busybox', '1.37.0', PACKAGED),
      ...recipe('linux-yocto', '6.12+git', ['do_compile'], 'qemux86_64-poky-linux'),
      ...recipe('my-kernel', '1.0', ['do_shared_workdir'], 'qemux86_64-poky-linux'),
    ]);
    expect(s.entries.get(id('busybox', '1.37.0').key)).toMatchObject({
      state: 'excluded',
      reason: 'in RM_WORK_EXCLUDE',
    });
    expect(stateOf(s, 'qemux86_64-poky-linux/linux-yocto/6.12+git')).toBe('excluded');
    expect(stateOf(s, 'qemux86_64-poky-linux/my-kernel/1.0')).toBe('excluded');
  });

  it('marks a failed task, and a later start clears it', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: ['busybox'] });
    run(s, [start('busybox', '1.37.0', 'do_compile'), end('busybox', '1.37.0', 'do_compile', false)]);
    expect(s.entries.get(id('busybox', '1.37.0').key)).toMatchObject({
      state: 'failed',
      reason: 'do_compile failed',
    });
    run(s, [start('busybox', '1.37.0', 'do_compile')]);
    expect(stateOf(s, id('busybox', '1.37.0').key)).toBe('active');
  });

  it('a cleaned folder restored by setscene is refilled', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [
      { kind: 'found', t: 1, id: id('zlib', '1.3.1'), content: 'cleaned' },
      { kind: 'build-start', t: 2 },
      start('zlib', '1.3.1', 'do_package', true),
      end('zlib', '1.3.1', 'do_package', true, true),
    ]);
    expect(stateOf(s, id('zlib', '1.3.1').key)).toBe('refilled');
  });

  it('growth of a cleaned folder while idle is refilled too', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [{ kind: 'found', t: 1, id: id('zlib', '1.3.1'), content: 'cleaned' }]);
    expect(stateOf(s, id('zlib', '1.3.1').key)).toBe('cleaned');
    run(s, [{ kind: 'grew', t: 2, key: id('zlib', '1.3.1').key }]);
    expect(stateOf(s, id('zlib', '1.3.1').key)).toBe('refilled');
  });

  it('an older PV beside a newly built one is stale', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [
      { kind: 'found', t: 1, id: id('netbase', '6.5'), content: 'cleaned' },
      start('netbase', '6.6', 'do_fetch'),
    ]);
    expect(s.entries.get(id('netbase', '6.5').key)).toMatchObject({
      state: 'stale',
      reason: 'older PV beside 6.6',
    });
    expect(stateOf(s, id('netbase', '6.6').key)).toBe('active');
  });

  it('folders left by an earlier build and never touched are stale at the end', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [
      { kind: 'found', t: 1, id: id('old', '1.0'), content: 'left' },
      { kind: 'build-start', t: 2 },
      { kind: 'build-end', t: 3 },
    ]);
    expect(s.entries.get(id('old', '1.0').key)).toMatchObject({
      state: 'stale',
      reason: 'no task of this build touched it',
    });
  });

  it('an untouched kernel or RM_WORK_EXCLUDE dir stays excluded, not stale (its stamps covered it)', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: ['busybox'] });
    run(s, [
      { kind: 'found', t: 1, id: id('busybox', '1.37.0'), content: 'left' },
      { kind: 'found', t: 1, id: id('linux-yocto', '6.12'), content: 'left' },
      { kind: 'build-start', t: 2 },
      { kind: 'build-end', t: 3 },
    ]);
    expect(stateOf(s, id('busybox', '1.37.0').key)).toBe('excluded');
    expect(stateOf(s, id('linux-yocto', '6.12').key)).toBe('excluded');
  });

  it('work-shared folders are their own state', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    const shared = {
      key: 'work-shared/qemux86-64/kernel-source',
      arch: 'work-shared',
      pn: 'kernel-source',
      pv: '',
    };
    const changes = run(s, [{ kind: 'shared', t: 1, id: shared }]);
    expect(changes).toEqual([{ t: 1, id: shared, state: 'work-shared', reason: 'never cleaned by rm_work' }]);
  });

  it('parks task events until the folder is known, then replays them', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [{ kind: 'task-start', t: 1, pn: 'zlib', pv: '1.3.1', task: 'do_fetch', setscene: false }]);
    expect(s.pendingCount).toBe(1);
    const changes = run(s, [{ kind: 'found', t: 2, id: id('zlib', '1.3.1'), content: 'new' }]);
    expect(s.pendingCount).toBe(0);
    expect(changes.at(-1)).toMatchObject({ state: 'active', reason: 'do_fetch' });
  });

  it('an interrupted build leaves running recipes failed', () => {
    const s = new WorkdirStates({ rmWork: true, rmWorkExclude: [] });
    run(s, [start('zlib', '1.3.1', 'do_compile'), { kind: 'build-end', t: 9, interrupted: true }]);
    expect(s.entries.get(id('zlib', '1.3.1').key)).toMatchObject({
      state: 'failed',
      reason: 'do_compile interrupted',
    });
  });

  it('without rm_work finished recipes hold their space for good', () => {
    const s = new WorkdirStates({ rmWork: false, rmWorkExclude: [] });
    run(s, recipe('zlib', '1.3.1', PACKAGED));
    expect(s.entries.get(id('zlib', '1.3.1').key)).toMatchObject({
      state: 'waiting-rm-work',
      reason: 'finished; rm_work is not in INHERIT',
    });
  });
});

describe('classify', () => {
  it('reads a WORKDIR key from a path below it', () => {
    expect(workdirOfPath('/b/tmp/work', '/b/tmp/work/core2-64-poky-linux/zlib/1.3.1/temp')?.key).toBe(
      'core2-64-poky-linux/zlib/1.3.1',
    );
    expect(workdirOfPath('/b/tmp/work', '/b/tmp/work/core2-64-poky-linux/zlib')).toBeUndefined();
  });

  it('classifies found folders by content and log.task_order', () => {
    expect(classifyFound(['temp'], '')).toBe('cleaned');
    const order = '20251130-142627.570460 do_rm_work (30150): log.do_rm_work.30150\n';
    expect(classifyFound(['temp', 'packages-split'], order)).toBe('refilled');
    expect(
      classifyFound(
        ['temp', 'packages-split'],
        `${order}20251130-142628.1 do_package_setscene (3): log.x.3\n`,
      ),
    ).toBe('refilled');
    expect(classifyFound(['temp', 'build'], '20251130-142627.5 do_compile (3): log.do_compile.3\n')).toBe(
      'left',
    );
  });

  it('knows what do_build waits for', () => {
    expect(deliverablesDone('zlib', TARGET, new Set(['do_package', 'do_package_write_ipk']))).toBe(false);
    expect(
      deliverablesDone('zlib', TARGET, new Set(['do_package', 'do_package_write_ipk', 'do_package_qa'])),
    ).toBe(true);
    expect(
      deliverablesDone('core-image-minimal', 'qemux86_64-poky-linux', new Set(['do_image_complete'])),
    ).toBe(true);
  });
});
