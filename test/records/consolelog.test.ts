import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ConsoleEvent,
  parseConsoleLine,
  parseConsoleLog,
  readConsoleLog,
} from '../../src/bitbake/consolelog.js';

const log = fileURLToPath(
  new URL('../fixtures/records/consolelog-glued-progress-mc-failure/console.log', import.meta.url),
);
const P = '/home/u/poky/meta';

describe('parseConsoleLog on a failed build', () => {
  const events = parseConsoleLog(readFileSync(log, 'utf8').split('\n').slice(0, -1));
  const notText = events.filter((e) => e.kind !== 'text');

  it('turns every recognised line into its event (golden)', () => {
    expect(notText).toEqual([
      { kind: 'message', level: 'NOTE', text: 'Resolving any missing task queue dependencies', lineNo: 5 },
      { kind: 'build-config', name: 'BB_VERSION', value: '2.15.2', lineNo: 8 },
      { kind: 'build-config', name: 'BUILD_SYS', value: 'x86_64-linux', lineNo: 9 },
      { kind: 'build-config', name: 'NATIVELSBSTRING', value: 'ubuntu-24.04', lineNo: 10 },
      { kind: 'build-config', name: 'TARGET_SYS', value: 'x86_64-poky-linux', lineNo: 11 },
      { kind: 'build-config', name: 'MACHINE', value: 'qemux86-64', lineNo: 12 },
      { kind: 'build-config', name: 'DISTRO', value: 'poky', lineNo: 13 },
      { kind: 'build-config', name: 'DISTRO_VERSION', value: '5.3', lineNo: 14 },
      { kind: 'build-config', name: 'TUNE_FEATURES', value: 'm64 core2', lineNo: 15 },
      { kind: 'build-config', name: 'TARGET_FPU', value: '', lineNo: 16 },
      // 'meta' shares meta-poky's branch:revision, so BitBake printed its name alone.
      {
        kind: 'layer',
        name: 'meta',
        branch: 'whinlatter',
        revision: '4f0e2b1c9d8a7e6f5a4b3c2d1e0f9a8b7c6d5e4f',
        lineNo: 17,
      },
      {
        kind: 'layer',
        name: 'meta-poky',
        branch: 'whinlatter',
        revision: '4f0e2b1c9d8a7e6f5a4b3c2d1e0f9a8b7c6d5e4f',
        lineNo: 18,
      },
      {
        kind: 'layer',
        name: 'meta-rambake',
        branch: 'main',
        revision: '0123456789abcdef0123456789abcdef01234567',
        lineNo: 19,
      },
      {
        kind: 'sstate-summary',
        wanted: 42,
        local: 30,
        mirrors: 0,
        missed: 12,
        current: 7,
        matchPercent: 71,
        completePercent: 75,
        progress: 'Initialising tasks...',
        lineNo: 21,
      },
      { kind: 'message', level: 'NOTE', text: 'Executing Tasks', lineNo: 23 },
      {
        kind: 'task-run',
        mode: 'setscene',
        index: 1,
        total: 30,
        tid: `mc:arm:${P}/recipes-core/zlib/zlib_1.3.1.bb:do_package_setscene`,
        lineNo: 24,
      },
      { kind: 'recipe-task', pf: 'zlib-1.3.1-r0', task: 'do_package_setscene', state: 'Started', lineNo: 25 },
      {
        kind: 'recipe-task',
        pf: 'zlib-1.3.1-r0',
        task: 'do_package_setscene',
        state: 'Succeeded',
        lineNo: 26,
      },
      {
        kind: 'setscene-failed',
        tid: `virtual:native:${P}/recipes-devtools/m4/m4_1.4.19.bb:do_populate_sysroot_setscene`,
        exitCode: 1,
        lineNo: 27,
      },
      {
        kind: 'setscene-completed',
        progress: 'Checking sstate mirror object availability...done.',
        lineNo: 28,
      },
      {
        kind: 'task-run',
        mode: 'normal',
        index: 31,
        total: 60,
        tid: `${P}/recipes-core/busybox/busybox_1.37.0.bb:do_compile`,
        lineNo: 29,
      },
      {
        kind: 'task-run',
        mode: 'noexec',
        index: 32,
        total: 60,
        tid: `virtual:native:${P}/recipes-devtools/m4/m4_1.4.19.bb:do_build`,
        lineNo: 30,
      },
      { kind: 'recipe-task', pf: 'busybox-1.37.0-r0', task: 'do_compile', state: 'Started', lineNo: 31 },
      {
        kind: 'message',
        level: 'WARNING',
        text: 'QA Issue: something odd [build-deps]',
        pf: 'busybox-1.37.0-r0',
        task: 'do_compile',
        lineNo: 32,
      },
      {
        kind: 'message',
        level: 'ERROR',
        text: 'oe_runmake failed',
        pf: 'busybox-1.37.0-r0',
        task: 'do_compile',
        lineNo: 33,
      },
      {
        kind: 'failure-logfile',
        path: '/home/u/build/tmp/work/core2-64-poky-linux/busybox/1.37.0/temp/log.do_compile.30150',
        lineNo: 34,
      },
      { kind: 'recipe-task', pf: 'busybox-1.37.0-r0', task: 'do_compile', state: 'Failed', lineNo: 38 },
      {
        kind: 'task-failed',
        tid: `${P}/recipes-core/busybox/busybox_1.37.0.bb:do_compile`,
        exitCode: 1,
        lineNo: 39,
      },
      { kind: 'tasks-summary', attempted: 60, notRerun: 45, failed: 1, lineNo: 40 },
      { kind: 'message', level: 'NOTE', text: 'Writing buildhistory', lineNo: 41 },
    ]);
  });

  it("keeps the failed task's log dump and headers as plain text", () => {
    const texts = events.filter((e): e is Extract<ConsoleEvent, { kind: 'text' }> => e.kind === 'text');
    expect(texts.map((e) => e.text)).toContain('| DEBUG: Executing shell function do_compile');
    expect(texts.map((e) => e.text)).toContain('Loading cache...done.');
    // 41 lines: the block's header and its closing blank line give no event.
    expect(events).toHaveLength(39);
  });
});

describe('single lines', () => {
  const one = (line: string) => parseConsoleLog([line]);
  it('reads an all-succeeded summary and a summary without level or progress', () => {
    expect(
      one(
        "NOTE: Tasks Summary: Attempted 9421 tasks of which 9000 didn't need to be rerun and all succeeded.",
      ),
    ).toEqual([{ kind: 'tasks-summary', attempted: 9421, notRerun: 9000, failed: 0, lineNo: 1 }]);
    expect(
      one('Sstate summary: Wanted 3 Local 3 Mirrors 0 Missed 0 Current 1 (100% match, 100% complete)'),
    ).toEqual([
      {
        kind: 'sstate-summary',
        wanted: 3,
        local: 3,
        mirrors: 0,
        missed: 0,
        current: 1,
        matchPercent: 100,
        completePercent: 100,
        lineNo: 1,
      },
    ]);
  });

  it('separates progress text glued before a message', () => {
    expect(
      parseConsoleLine('Checking sstate mirror object availability...done.NOTE: Executing Tasks', 7),
    ).toEqual({
      kind: 'message',
      level: 'NOTE',
      text: 'Executing Tasks',
      progress: 'Checking sstate mirror object availability...done.',
      lineNo: 7,
    });
  });

  it('does not mistake a level word inside text for a message', () => {
    expect(one('checking whether ERROR: is defined... no')).toEqual([
      { kind: 'text', text: 'checking whether ERROR: is defined... no', lineNo: 1 },
    ]);
  });
});

describe('readConsoleLog', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('streams the same events as the in-memory parser', async () => {
    const events: ConsoleEvent[] = [];
    const result = await readConsoleLog(log, (e) => events.push(e), { chunkBytes: 64 });
    expect(events).toEqual(parseConsoleLog(readFileSync(log, 'utf8').split('\n').slice(0, -1)));
    expect(result.lines).toBe(41);
  });

  it('skips an overlong line and keeps counting lines after it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rambake-console-'));
    const file = join(dir, 'console.log');
    writeFileSync(file, `NOTE: before\n${'y'.repeat(5000)}\nNOTE: Setscene tasks completed\n`);
    const events: ConsoleEvent[] = [];
    const result = await readConsoleLog(file, (e) => events.push(e), { maxLineBytes: 1000, chunkBytes: 256 });
    expect(result.skippedLongLines).toBe(1);
    expect(events).toEqual([
      { kind: 'message', level: 'NOTE', text: 'before', lineNo: 1 },
      { kind: 'setscene-completed', lineNo: 2 },
    ]);
  });
});
