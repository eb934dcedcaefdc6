import { describe, expect, it } from 'vitest';
import { measureFootprint } from '../../src/plan/footprint.js';
import { type SimTask, simulateBuild, simulateSteps, weighTasks } from '../../src/plan/peak.js';

// Two recipes a and b, each: compile (adds bytes) → rm_work (frees most) → build.
function recipe(pn: string, compile: number, bytes: number, deps: string[] = []): SimTask[] {
  return [
    { id: `${pn}:do_compile`, pn, task: 'do_compile', deps, seconds: compile, bytes },
    {
      id: `${pn}:do_rm_work`,
      pn,
      task: 'do_rm_work',
      deps: [`${pn}:do_compile`],
      seconds: 1,
      bytes: -bytes * 0.9,
    },
    { id: `${pn}:do_build`, pn, task: 'do_build', deps: [`${pn}:do_rm_work`], seconds: 0, bytes: 0 },
  ];
}
const graph = (...tasks: SimTask[][]) => new Map(tasks.flat().map((t) => [t.id, t]));

describe('run-queue simulation', () => {
  it('weighs end points 10 and every other task 1 plus its dependents', () => {
    const w = weighTasks(graph(recipe('a', 5, 100)));
    expect([w.get('a:do_build'), w.get('a:do_rm_work'), w.get('a:do_compile')]).toEqual([10, 11, 12]);
  });

  it('two giants side by side with two threads; one after the other with one', () => {
    const g = graph(recipe('a', 10, 1000), recipe('b', 10, 1000));
    expect(simulateBuild(g, { threads: 2, scheduler: 'speed' }).peakBytes).toBe(2000);
    // One at a time: the first leaves its 10% behind.
    expect(simulateBuild(g, { threads: 1, scheduler: 'completion' }).peakBytes).toBe(1100);
  });

  it('completion finishes a started recipe before starting another; speed does not', () => {
    // c's compile is heavier (more depends on it) than a's rm_work, so speed starts c first.
    const top: SimTask = {
      id: 'img:do_build',
      pn: 'img',
      task: 'do_build',
      deps: ['a:do_build', 'c:do_build'],
      seconds: 0,
      bytes: 0,
    };
    const c = recipe('c', 1, 500);
    c.push({ id: 'c:do_extra', pn: 'c', task: 'do_extra', deps: ['c:do_compile'], seconds: 1, bytes: 0 });
    c[2]!.deps.push('c:do_extra');
    const g = graph(recipe('a', 1, 1000), c, [top]);
    expect(simulateBuild(g, { threads: 1, scheduler: 'speed' }).peakBytes).toBe(1500);
    // c is cleaned (50 left) before a starts.
    expect(simulateBuild(g, { threads: 1, scheduler: 'completion' }).peakBytes).toBe(1050);
  });

  it('steps run each invocation alone and keep what it left', () => {
    const g = graph(recipe('a', 10, 1000), recipe('b', 10, 1000), [
      {
        id: 'img:do_build',
        pn: 'img',
        task: 'do_build',
        deps: ['a:do_build', 'b:do_build'],
        seconds: 0,
        bytes: 0,
      },
    ]);
    const plain = simulateSteps(g, ['img:do_build'], { threads: 4, scheduler: 'completion' });
    const steps = simulateSteps(g, ['a:do_build', 'img:do_build'], { threads: 4, scheduler: 'completion' });
    expect(plain.peakBytes).toBe(2000);
    expect(steps.peakBytes).toBe(1100);
    expect(steps.steps.map((s) => [s.step, s.peakBytes])).toEqual([
      ['a', 1000],
      ['img', 1100],
    ]);
  });
});

describe('footprint from usage samples', () => {
  it('credits growth to the task that ended and rm_work with what it freed', () => {
    const samples = [
      { t: 0, used: 0 },
      { t: 100, used: 0 },
      { t: 200, used: 1000 }, // a:do_compile ended at 150
      { t: 300, used: 1000 },
      { t: 400, used: 200 }, // a:do_rm_work ended at 350
    ];
    const f = measureFootprint(samples, [
      { pn: 'a', task: 'do_compile', start: 0, end: 150 },
      { pn: 'a', task: 'do_rm_work', start: 340, end: 350 },
    ]);
    expect(f.bytes.get('a:do_compile')).toBe(1000);
    expect(f.bytes.get('a:do_rm_work')).toBe(-800);
    expect(f.freedShare).toBeCloseTo(0.8);
    expect(f.recipePeaks.get('a')).toBe(1000);
  });

  it('shares a cluster by run time, and rm_work in it frees the measured share', () => {
    const samples = [
      { t: 0, used: 0 },
      { t: 100, used: 1000 }, // a compiled (50 ms), alone
      { t: 200, used: 1000 },
      { t: 300, used: 200 }, // a's rm_work alone: frees 80%
      { t: 400, used: 200 },
      { t: 500, used: 3200 }, // b (3 s) and c (1 s) end together
      { t: 600, used: 3200 },
      // b's rm_work (frees 0.8 × b) and d's compile end together: net -1000
      { t: 700, used: 2200 },
    ];
    const f = measureFootprint(samples, [
      { pn: 'a', task: 'do_compile', start: 0, end: 50 },
      { pn: 'a', task: 'do_rm_work', start: 240, end: 250 },
      { pn: 'b', task: 'do_compile', start: 0, end: 450 },
      { pn: 'c', task: 'do_compile', start: 300, end: 450 },
      { pn: 'b', task: 'do_rm_work', start: 640, end: 650 },
      { pn: 'd', task: 'do_compile', start: 600, end: 650 },
    ]);
    expect(f.bytes.get('b:do_compile')).toBeCloseTo(2250);
    expect(f.bytes.get('c:do_compile')).toBeCloseTo(750);
    expect(f.bytes.get('b:do_rm_work')).toBeCloseTo(-1800);
    expect(f.bytes.get('d:do_compile')).toBeCloseTo(800);
  });

  it('shares a landing by bytes written when buildstats recorded them; do_fetch writes outside TMPDIR', () => {
    const samples = [
      { t: 0, used: 0 },
      { t: 100, used: 1000 },
    ];
    const f = measureFootprint(samples, [
      // the long compile wrote little; the short install wrote most
      { pn: 'a', task: 'do_compile', start: 0, end: 50, wchar: 2000 },
      { pn: 'b', task: 'do_install', start: 40, end: 50, wchar: 6000 },
      { pn: 'c', task: 'do_fetch', start: 0, end: 50, wchar: 9_000_000 },
    ]);
    expect(f.bytes.get('a:do_compile')).toBeCloseTo(250);
    expect(f.bytes.get('b:do_install')).toBeCloseTo(750);
    expect(f.bytes.get('c:do_fetch')).toBe(0);
  });

  it('never credits a task more than it wrote: the rest goes back to rm_work, then to the next landing', () => {
    const samples = [
      { t: 0, used: 0 },
      { t: 100, used: 1000 }, // a compiled alone (wrote 1000)
      { t: 200, used: 1000 },
      { t: 300, used: 200 }, // a's rm_work alone: the usual share is 80%
      { t: 400, used: 1200 }, // b compiled alone
      { t: 500, used: 1300 }, // b's rm_work freed nothing; e wrote 100
      { t: 600, used: 1800 }, // c wrote 100 of it; d's output is already landing
      { t: 700, used: 1900 }, // d ends
    ];
    const f = measureFootprint(samples, [
      { pn: 'a', task: 'do_compile', start: 0, end: 50, wchar: 1000 },
      { pn: 'a', task: 'do_rm_work', start: 240, end: 250, wchar: 10 },
      { pn: 'b', task: 'do_compile', start: 300, end: 350, wchar: 1000 },
      { pn: 'b', task: 'do_rm_work', start: 440, end: 450, wchar: 10 },
      { pn: 'e', task: 'do_install', start: 400, end: 450, wchar: 100 },
      { pn: 'c', task: 'do_compile', start: 500, end: 550, wchar: 100 },
      { pn: 'd', task: 'do_compile', start: 500, end: 650, wchar: 600 },
    ]);
    expect(f.freedShare).toBeCloseTo(0.8);
    expect(f.bytes.get('e:do_install')).toBeCloseTo(100);
    expect(f.bytes.get('b:do_rm_work')).toBeCloseTo(0);
    expect(f.recipePeaks.get('b')).toBeCloseTo(1000);
    expect(f.bytes.get('c:do_compile')).toBeCloseTo(100);
    expect(f.bytes.get('d:do_compile')).toBeCloseTo(500);
    // every byte of growth is credited once
    const sum = [...f.bytes.values()].reduce((x, y) => x + y, 0);
    expect(sum).toBeCloseTo(1900);
  });
});
