// The readers moved onto the one bounded reader: the watcher's console follower, its buildstats
// times and work-dir task order, and revert's look at the old TMPDIR. A FIFO or a link to a
// device where each expects a file is passed over at once (the watch goes on; a FIFO would
// block it for ever), never opened for a blocking read.

import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { predictNextBuild } from '../../src/apply/revert-aftermath.js';
import { RefusedFileError } from '../../src/errors.js';
import { openCheckedSync } from '../../src/system/read-file.js';
import { ConsoleFollower } from '../../src/watch/console-follow.js';
import { inspectWorkdir } from '../../src/watch/found.js';
import { PastTaskTimes } from '../../src/watch/past-times.js';
import { tempDir } from '../helpers/exec.js';

const mkfifo = (path: string) => execFileSync('mkfifo', [path]);
const disposers: (() => void)[] = [];
afterEach(() => {
  for (const d of disposers.splice(0)) d();
});
const scratch = () => {
  const dir = tempDir('rambake-special-readers-');
  disposers.push(dir.cleanup);
  return dir.path;
};

describe('watch and revert readers refuse special files without blocking', () => {
  it('openCheckedSync: a FIFO and /dev/zero are refused, a regular file opens', () => {
    const dir = scratch();
    mkfifo(join(dir, 'fifo'));
    expect(() => openCheckedSync(join(dir, 'fifo'))).toThrow(RefusedFileError);
    expect(() => openCheckedSync('/dev/zero')).toThrow(/a character device/);
    writeFileSync(join(dir, 'log'), 'x\n');
    const fd = openCheckedSync(join(dir, 'log'));
    expect(fd).toBeGreaterThan(2);
    closeSync(fd);
  });

  it('the console follower passes over console-latest.log pointing at a FIFO or /dev/zero', () => {
    for (const make of [(p: string) => mkfifo(p), (p: string) => symlinkSync('/dev/zero', p)]) {
      const cooker = join(scratch(), 'cooker');
      mkdirSync(join(cooker, 'qemux86-64'), { recursive: true });
      const target = join(cooker, 'qemux86-64', '20251130142601.log');
      make(target);
      symlinkSync(target, join(cooker, 'qemux86-64', 'console-latest.log'));
      const builds: string[] = [];
      const follower = new ConsoleFollower(
        cooker,
        'qemux86-64',
        { onBuild: (f) => builds.push(f), onEvent: () => {} },
        true,
      );
      expect(follower.poll()).toBe(false);
      expect(builds).toEqual([]);
      follower.close();
    }
  });

  it("buildstats times and a work dir's log.task_order: a FIFO reads as nothing", () => {
    const base = scratch();
    const pf = join(base, '20251130142602', 'zlib-1.3.1-r0');
    mkdirSync(pf, { recursive: true });
    mkfifo(join(pf, 'do_compile'));
    expect(new PastTaskTimes(base, 0).timeOf('zlib-1.3.1-r0', 'do_compile', 'start')).toBeUndefined();
    const work = join(scratch(), 'zlib', '1.3.1');
    mkdirSync(join(work, 'temp'), { recursive: true });
    mkfifo(join(work, 'temp', 'log.task_order'));
    expect(inspectWorkdir(work, 'core2-64-poky-linux', 'zlib', '1.3.1')?.id.pn).toBe('zlib');
  });

  it("revert's next-build text: a FIFO as the old TMPDIR's saved_tmpdir does not hang it", async () => {
    const tmpdir = scratch();
    mkfifo(join(tmpdir, 'saved_tmpdir'));
    const next = await predictNextBuild({ scope: 'tmpdir', tmpdir, mountPath: join(tmpdir, 'ram') });
    expect(next.tmpdir).toBe(tmpdir);
  });
});
