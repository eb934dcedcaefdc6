import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDepGraph } from '../../src/bitbake/taskdepends.js';
import { UsageError } from '../../src/errors.js';
import { emptyHistory } from '../../src/plan/history.js';
import { chooseSteps, orderByDependency, parseStepsList, stepCommands } from '../../src/plan/steps.js';
import { recipeDeps, simTasksFromDot } from '../../src/plan/steps-tasks.js';
import { ROOT } from '../helpers/exec.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'steps', 'giants-depend-on-cross');
const noHistory = emptyHistory();

async function fixtureDeps() {
  const dep = await readDepGraph(FIXTURE);
  return { pns: dep.pns, deps: recipeDeps(simTasksFromDot(dep, noHistory)) };
}

describe('steps: which recipes, in which order', () => {
  it('without history picks the known giants, the cross compiler first since webkitgtk needs it', async () => {
    const { pns, deps } = await fixtureDeps();
    const r = chooseSteps({ targets: ['core-image-sato'], pns, deps, peaks: new Map() });
    expect(r.steps).toEqual(['gcc-cross-x86_64', 'webkitgtk']);
    expect(r.reasons.map((x) => x.step)).toEqual(['gcc-cross-x86_64', 'webkitgtk']);
    expect(r.reasons[0]?.text).toMatch(/known giant/);
  });

  it('with measured peaks picks the largest (at least a quarter of the top one), dependencies first', async () => {
    const { pns, deps } = await fixtureDeps();
    const peaks = new Map([
      ['webkitgtk', 9e9],
      ['python3.12', 3e9],
      ['gcc-cross-x86_64', 1e9],
      ['core-image-sato', 20e9],
    ]);
    const r = chooseSteps({ targets: ['core-image-sato'], pns, deps, peaks });
    expect(r.steps).toEqual(['webkitgtk', 'python3.12']);
    expect(r.reasons).toEqual([
      { step: 'webkitgtk', text: 'largest measured work-dir peak', bytes: 9e9 },
      { step: 'python3.12', text: 'largest measured work-dir peak', bytes: 3e9 },
    ]);
  });

  it('puts a needed recipe before its dependent whatever the input order', () => {
    const deps = new Map([
      ['webkitgtk', new Set(['gcc-cross-x86_64', 'icu'])],
      ['icu', new Set(['gcc-cross-x86_64'])],
    ]);
    expect(orderByDependency(['webkitgtk', 'icu', 'gcc-cross-x86_64'], deps)).toEqual([
      'gcc-cross-x86_64',
      'icu',
      'webkitgtk',
    ]);
  });

  it('without a graph orders by when each started building', () => {
    const first = new Map([
      ['b', 20],
      ['a', 30],
    ]);
    expect(orderByDependency(['a', 'b'], new Map(), first)).toEqual(['b', 'a']);
  });

  it('turns steps into commands, the whole command last (every target and option) and no target as a step', () => {
    expect(
      stepCommands(['gcc-cross-x86_64', 'webkitgtk', 'core-image-sato'], ['bitbake', 'core-image-sato']),
    ).toEqual([
      ['bitbake', 'gcc-cross-x86_64'],
      ['bitbake', 'webkitgtk'],
      ['bitbake', 'core-image-sato'],
    ]);
    expect(stepCommands([], ['bitbake', 'core-image-minimal'])).toEqual([['bitbake', 'core-image-minimal']]);
    expect(
      stepCommands(['linux-yocto', 'hello-data'], ['/opt/bitbake', '-k', 'hello-data', 'os-release']),
    ).toEqual([
      ['/opt/bitbake', 'linux-yocto'],
      ['/opt/bitbake', '-k', 'hello-data', 'os-release'],
    ]);
    expect(stepCommands(['tiny-giant'], ['runuser', '-u', 'b', '--', 'bitbake', 'a', 'b'])).toEqual([
      ['runuser', '-u', 'b', '--', 'bitbake', 'tiny-giant'],
      ['runuser', '-u', 'b', '--', 'bitbake', 'a', 'b'],
    ]);
  });

  it('never picks a recipe outside the graph of the targets, nor a target', () => {
    const r = chooseSteps({
      targets: ['a', 'b'],
      pns: ['a', 'b', 'gcc-cross-x86_64'],
      deps: new Map(),
      peaks: new Map([
        ['b', 9e9],
        ['elsewhere', 8e9],
        ['gcc-cross-x86_64', 3e9],
      ]),
    });
    expect(r.steps).toEqual(['gcc-cross-x86_64']);
  });

  it('parses --steps a,b,c and refuses an empty list', () => {
    expect(parseStepsList(' a, b ,c ')).toEqual(['a', 'b', 'c']);
    expect(() => parseStepsList(' , ')).toThrow(UsageError);
  });
});
