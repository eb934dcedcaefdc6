// What a run wrote next to TMPDIR on its disk (sstate, downloads), walked after the run: a file
// counts from its ctime (a download keeps its server's mtime, an old date), and a folder the run
// made counts too (sstate's hash folders: about 10 MiB of a sato-like build's sstate on ext4).

import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { writtenOutsideTmpdir } from '../../src/plan/history-outside.js';
import { findMount, readMountinfo } from '../../src/system/mounts.js';
import { tempDir } from '../helpers/exec.js';

const dirs: Array<{ cleanup: () => void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

it('counts new files by ctime and new folders, not folders that held files before the run', async () => {
  const root = tempDir('rambake-written-');
  dirs.push(root);
  const sstate = join(root.path, 'sstate-cache');
  mkdirSync(join(sstate, 'ab', 'cd'), { recursive: true });
  writeFileSync(join(sstate, 'ab', 'cd', 'old.tar.zst'), Buffer.alloc(8192, 1));
  await new Promise((r) => setTimeout(r, 30));
  const from = Date.now();
  await new Promise((r) => setTimeout(r, 10));
  // An archive in a folder that was there before: the file counts, the folder does not.
  writeFileSync(join(sstate, 'ab', 'cd', 'new.tar.zst'), Buffer.alloc(8192, 2));
  // Two new hash folders and their archive: all three count.
  mkdirSync(join(sstate, 'ef', '01'), { recursive: true });
  writeFileSync(join(sstate, 'ef', '01', 'x.tar.zst'), Buffer.alloc(8192, 3));
  // A download with its server's date: counted by when it was written.
  const dl = join(root.path, 'downloads');
  mkdirSync(dl);
  writeFileSync(join(dl, 'zlib-1.3.tar.xz'), Buffer.alloc(8192, 4));
  utimesSync(join(dl, 'zlib-1.3.tar.xz'), new Date('2001-01-01'), new Date('2001-01-01'));
  const to = Date.now() + 10;

  const mounts = await readMountinfo();
  const mountPoint = findMount(mounts, root.path).mountPoint;
  const written = await writtenOutsideTmpdir(
    [sstate, dl],
    join(root.path, 'tmp'),
    mountPoint,
    { from, to },
    mounts,
  );
  const blocks = (p: string) => statSync(p).blocks * 512;
  const expected = [
    join(sstate, 'ab', 'cd', 'new.tar.zst'),
    join(sstate, 'ef', '01', 'x.tar.zst'),
    join(sstate, 'ef', '01'),
    join(sstate, 'ef'),
    join(dl, 'zlib-1.3.tar.xz'),
    dl,
  ];
  expect(written.reduce((sum, w) => sum + w.bytes, 0)).toBe(expected.reduce((sum, p) => sum + blocks(p), 0));
  expect(written).toHaveLength(expected.length);
  for (const w of written) expect(w.t).toBeGreaterThanOrEqual(from);
});
