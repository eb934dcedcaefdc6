// Which measured build may stand for the task graph of some targets: only a whole build of
// them. Builds of other targets, builds that never ran a target, and `-c TASK` runs do not
// answer (steps-graph.ts then tries the next source, else refuses with one line).

import { describe, expect, it } from 'vitest';
import { type MeasuredBuild, partialBuildOption, uncovered } from '../../src/plan/steps-cover.js';

const span = (pn: string, task = 'do_compile') => ({ pn, task, start: 1, end: 2 });
const build = (extra: Partial<MeasuredBuild>): MeasuredBuild => ({
  source: 'recorded',
  where: 'the recorded run r.jsonl',
  spans: [span('gcc-cross'), span('glibc'), span('zlib'), span('core-image-sato', 'do_rootfs')],
  startSpans: [],
  ...extra,
});

describe('a measured build covers targets only when it was a whole build of them', () => {
  it('covers its own targets, and them with recipes it ran besides', () => {
    const image = build({ built: ['core-image-sato'], command: ['bitbake', 'core-image-sato'] });
    expect(uncovered(image, ['core-image-sato'])).toBeUndefined();
    expect(uncovered(image, ['core-image-sato', 'zlib'])).toBeUndefined();
  });

  it('does not cover a recipe it ran for other targets, nor one it never ran', () => {
    const image = build({ built: ['core-image-sato'] });
    expect(uncovered(image, ['zlib'])).toBe(
      'the recorded run r.jsonl built core-image-sato: which of its recipes zlib needs is not known',
    );
    expect(uncovered(image, ['busybox'])).toBe('the recorded run r.jsonl ran no task of busybox');
    expect(uncovered(build({}), ['zlib'])).toMatch(/its targets are not known/);
  });

  it('a -c TASK run, or one with --runonly, -b or -g, builds no target whole', () => {
    const clean = build({ built: ['zlib'], spans: [span('zlib', 'do_cleansstate')] });
    expect(uncovered({ ...clean, command: ['bitbake', '-c', 'cleansstate', 'zlib'] }, ['zlib'])).toBe(
      'the recorded run r.jsonl ran bitbake -c cleansstate, not whole builds of its targets',
    );
    expect(partialBuildOption(['runuser', '-u', 'b', '--', 'bitbake', '-ccompile', 'zlib'])).toBe(
      '-c compile',
    );
    expect(partialBuildOption(['bitbake', '--cmd=fetch', 'zlib'])).toBe('--cmd fetch');
    expect(partialBuildOption(['bitbake', '--runonly=fetch', 'core-image-sato'])).toBe('--runonly=fetch');
    expect(partialBuildOption(['bitbake', '-b', 'zlib_1.3.bb'])).toBe('-b');
    expect(partialBuildOption(['bitbake', '-g', 'zlib'])).toBe('-g');
  });

  it('a build with -c build, -C TASK, -k or a target after -- is a whole build', () => {
    expect(partialBuildOption(['bitbake', '-c', 'build', 'zlib'])).toBeUndefined();
    expect(partialBuildOption(['bitbake', '-C', 'compile', 'zlib'])).toBeUndefined();
    expect(partialBuildOption(['/srv/poky/bitbake/bin/bitbake', '-k', 'zlib'])).toBeUndefined();
    expect(partialBuildOption(['bitbake', '--', '-c'])).toBeUndefined();
    expect(partialBuildOption(undefined)).toBeUndefined();
  });
});
