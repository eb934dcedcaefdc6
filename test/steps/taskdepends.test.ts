import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parsePnBuildlist,
  parseTaskDepends,
  readDepGraph,
  splitDotId,
} from '../../src/bitbake/taskdepends.js';
import { ConfSyntaxError } from '../../src/errors.js';
import { ROOT } from '../helpers/exec.js';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'steps', 'giants-depend-on-cross');

describe('task-depends.dot', () => {
  it('splits node names at the last .do_, so PNs may hold dots', () => {
    expect(splitDotId('python3.12.do_compile')).toEqual({ pn: 'python3.12', task: 'do_compile' });
    expect(splitDotId('gcc-cross-x86_64.do_build')).toEqual({ pn: 'gcc-cross-x86_64', task: 'do_build' });
  });

  it('reads nodes with version and recipe file, and edges as dependencies', async () => {
    const { graph, pns } = await readDepGraph(FIXTURE);
    expect(pns).toEqual(['webkitgtk', 'gcc-cross-x86_64', 'python3.12', 'core-image-sato']);
    const compile = graph.tasks.get('webkitgtk.do_compile');
    expect(compile).toMatchObject({
      pn: 'webkitgtk',
      task: 'do_compile',
      version: '2.48.1-r0',
      bbFile: '/srv/meta/recipes-sato/webkit/webkitgtk_2.48.1.bb',
      deps: ['gcc-cross-x86_64.do_populate_sysroot'],
    });
    expect(graph.tasks.get('core-image-sato.do_rootfs')?.deps).toEqual([
      'webkitgtk.do_build',
      'python3.12.do_build',
    ]);
    expect([...graph.tasks.keys()][0]).toBe('gcc-cross-x86_64.do_compile');
  });

  it('rejects a line that is neither node nor edge, with its line number', () => {
    const text = 'digraph depends {\n"a.do_x" [label="a do_x"]\nrandom text\n}\n';
    expect(() => parseTaskDepends(text, 'x.dot')).toThrow(ConfSyntaxError);
    expect(() => parseTaskDepends(text, 'x.dot')).toThrow(/x\.dot:3/);
  });

  it('pn-buildlist ignores blank lines', () => {
    expect(parsePnBuildlist('a\n\n b \n')).toEqual(['a', 'b']);
  });
});
