// The console-log reader on a log the real BitBake wrote: one build of the tiny layer, then its
// cooker log read whole and read for each kind alone (the reader then decodes only the lines
// that can hold that kind). Every kind alone must give exactly the whole read's events of that
// kind; the task starts must be as many as `grep -c` finds with the task-start pattern.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { expect, it } from 'vitest';
import { type ConsoleEvent, type ConsoleEventKind, readConsoleLog } from '../../src/bitbake/consolelog.js';
import { bitbakeBuild, describeRealBuild, makeTinyBuild } from './harness.js';

describeRealBuild('console log of a real build', () => {
  it('reads each kind alone exactly as in the whole read, in any chunk size', async () => {
    const build = await makeTinyBuild();
    const r = await bitbakeBuild(build);
    expect(r.exitCode).toBe(0);
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
  }, 600_000);
});
