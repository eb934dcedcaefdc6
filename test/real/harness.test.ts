// Proves the harness of the real BitBake suite: its `bitbake -e` reader against a known fact of
// BitBake's file order (bitbake-formats.md §12), and a real build of the tiny layer as the build
// user with TMPDIR on a real tmpfs, then again from sstate. Prints the timings it measures. The
// console-log reader is checked on that build's log (one real build serves both: each costs
// about 80 s of CPU on 2 cores).

import { existsSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleEvent, type ConsoleEventKind, readConsoleLog } from '../../src/bitbake/consolelog.js';
import {
  bitbakeBuild,
  bitbakeE,
  describeReal,
  describeRealBuild,
  makeConfigBuildDir,
  makeTinyBuild,
  mountTmpfs,
  parseBitbakeE,
  type TinyBuild,
} from './harness.js';

describe('parseBitbakeE', () => {
  it('undoes exactly the escapes of emit_var and stops at the first shell function', () => {
    const text = [
      '#',
      '# $A [2 operations]',
      '#   set /x/local.conf:1',
      '#     "not a value"',
      'A="plain"',
      'export PATH="/b:/c"',
      'Q="say \\"hi\\" to \\${USER} at C:\\\\dir\\\\"',
      'M="line one \\',
      'line two \\',
      '  line three"',
      'E=""',
      'unset UNEXPORTED',
      '# line: 3, file: /x/base.bbclass',
      'do_fake() {',
      'A="from a function body"',
      '}',
    ].join('\n');
    const { vars, exported } = parseBitbakeE(text);
    expect(Object.fromEntries(vars)).toEqual({
      A: 'plain',
      PATH: '/b:/c',
      Q: 'say "hi" to ${USER} at C:\\\\dir\\\\',
      M: 'line one\nline two\n  line three',
      E: '',
    });
    expect([...exported]).toEqual(['PATH']);
  });
});

describeReal('bitbake -e on a config-only build dir', () => {
  it('a hard TMPDIR in local.conf wins over auto.conf (auto.conf is read first)', async () => {
    const topdir = await makeConfigBuildDir({
      local: 'MACHINE = "qemux86-64"\nTMPDIR = "${TOPDIR}/tmp"\nMULTI = "a \\"q\\" $b"\n',
      auto: 'TMPDIR = "/x"\n',
    });
    const r = await bitbakeE(topdir);
    if (!r.ok) throw new Error(`bitbake -e failed (${r.exitCode}): ${r.stderr || r.stdout}`);
    console.log(`bitbake -e: ${(r.elapsedMs / 1000).toFixed(1)} s, ${r.vars.size} variables`);
    expect(r.vars.get('TMPDIR')).toBe(join(topdir, 'tmp'));
    expect(r.vars.get('TOPDIR')).toBe(topdir);
    // Conf values keep their backslashes (no escapes in conf syntax); `bitbake -e` escapes `"`, `$`.
    expect(r.vars.get('MULTI')).toBe('a \\"q\\" $b');
    expect(r.exported.has('PATH')).toBe(true);
    expect(r.exported.has('TMPDIR')).toBe(false);
    expect(existsSync(join(topdir, 'bitbake.lock'))).toBe(false);
  }, 120_000);
});

function usedBytes(path: string): number {
  const s = statfsSync(path);
  return (s.blocks - s.bfree) * s.bsize;
}

/** Top-level entries of each WORKDIR of `pn` under TMPDIR/work/<arch>/<pn>/<pv>. */
function workdirEntries(tmpdir: string, pn: string): string[][] {
  const work = join(tmpdir, 'work');
  return readdirSync(work)
    .map((arch) => join(work, arch, pn))
    .filter((d) => existsSync(d))
    .flatMap((d) => readdirSync(d).map((pv) => readdirSync(join(d, pv)).sort()));
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

describeRealBuild('a real build of the tiny layer as the build user', () => {
  let build: TinyBuild;
  let fresh: Awaited<ReturnType<typeof bitbakeBuild>>;
  let grown = 0;
  beforeAll(async () => {
    const tmpfs = await mountTmpfs('512m');
    const before = usedBytes(tmpfs);
    build = await makeTinyBuild({ tmpdir: join(tmpfs, 'tmp') });
    fresh = await bitbakeBuild(build);
    grown = usedBytes(tmpfs) - before;
    console.log(`fresh build: ${secs(fresh.elapsedMs)}, tmpfs used ${(grown / 2 ** 20).toFixed(1)} MiB`);
  }, 900_000);

  it('builds tiny-target with TMPDIR on a real tmpfs', () => {
    expect(fresh.exitCode, fresh.stdout.slice(-4000) + fresh.stderr).toBe(0);
    expect(readdirSync(join(build.tmpdir, 'buildstats'))).toHaveLength(1);
    expect(grown).toBeGreaterThan(2 ** 20);
    // rm_work leaves only temp/ (the logs) in each cleaned WORKDIR.
    for (const pn of ['tiny-hello', 'tiny-giant', 'tiny-tool-native', 'os-release']) {
      expect(workdirEntries(build.tmpdir, pn), pn).toEqual([['temp']]);
    }
  });

  // The console-log reader on that build's cooker log: read whole, and read for each kind alone
  // (the reader then decodes only the lines that can hold that kind). Every kind alone must give
  // exactly the whole read's events of that kind; the task starts, as many as `grep -c` finds.
  it('its console log: each kind read alone exactly as in the whole read, in any chunk size', async () => {
    const dir = join(build.tmpdir, 'log', 'cooker', 'qemux86-64');
    const name = readdirSync(dir).find((f) => /^\d{14}\.log$/.test(f));
    expect(name).toBeDefined();
    const log = join(dir, name!);

    const all: ConsoleEvent[] = [];
    await readConsoleLog(log, (e) => all.push(e));
    const kinds = [...new Set(all.map((e) => e.kind))];
    // What a real build writes: the configuration block, sstate, task starts and ends, the summary.
    for (const k of ['build-config', 'layer', 'sstate-summary', 'task-run', 'recipe-task', 'tasks-summary'])
      expect(kinds).toContain(k);
    expect(all.find((e) => e.kind === 'build-config' && e.name === 'BB_VERSION')).toMatchObject({
      value: '2.15.2',
    });
    expect(all.find((e) => e.kind === 'tasks-summary')).toMatchObject({ failed: 0 });

    for (const chunkBytes of [13, 4096, undefined]) {
      for (const kind of kinds as ConsoleEventKind[]) {
        const some: ConsoleEvent[] = [];
        await readConsoleLog(log, (e) => some.push(e), {
          kinds: [kind],
          ...(chunkBytes === undefined ? {} : { chunkBytes }),
        });
        expect(some, `${kind} in chunks of ${chunkBytes}`).toEqual(all.filter((e) => e.kind === kind));
      }
    }

    const grep = await execa(
      'grep',
      ['-c', '-E', 'NOTE: Running ((setscene|noexec) )?task [0-9]+ of [0-9]+ \\(.+\\)$', log],
      { reject: false },
    );
    expect(all.filter((e) => e.kind === 'task-run').length).toBe(Number(grep.stdout.trim()));
  }, 120_000);

  it('builds again from sstate into a fresh TMPDIR, same build dir', async () => {
    rmSync(build.tmpdir, { recursive: true, force: true });
    const again = await bitbakeBuild(build);
    expect(again.exitCode, again.stdout.slice(-4000) + again.stderr).toBe(0);
    console.log(`rebuild from sstate: ${secs(again.elapsedMs)}`);
    expect(again.stdout).toMatch(/Sstate summary: Wanted \d+ Local [1-9]\d* /);
  }, 900_000);
});
