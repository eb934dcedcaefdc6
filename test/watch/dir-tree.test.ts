// DirTree on real inotify: what appears and goes under work/ down to the <pv> folders, each
// reported once, nothing for what was there before the watch, and one lstat per event's entry
// rather than a re-read of the folder.

import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DirTree } from '../../src/watch/dir-tree.js';

let root: string;
let tree: DirTree | undefined;
let seen: string[];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rambake-dirtree-'));
  seen = [];
});
afterEach(() => {
  tree?.close();
  rmSync(root, { recursive: true, force: true });
});

const start = (maxLevel: number) => {
  tree = new DirTree(root, maxLevel, {
    onAdd: (p) => seen.push(`+${relative(root, p)}`),
    onRemove: (p) => seen.push(`-${relative(root, p)}`),
  });
};

/** Waits until `n` events came (inotify is asynchronous), or 5 s. */
async function events(n: number): Promise<string[]> {
  for (let waited = 0; seen.length < n && waited < 5000; waited += 20) await sleep(20);
  await sleep(100); // and none more
  return seen;
}

describe('DirTree', () => {
  it('reports new <arch>, <pn> and <pv> folders, not older ones, not files, not below <pv>', async () => {
    mkdirSync(join(root, 'old-arch', 'old-pn', '1.0'), { recursive: true });
    start(2);
    mkdirSync(join(root, 'arch'));
    await events(1);
    mkdirSync(join(root, 'arch', 'zlib'));
    await events(2);
    mkdirSync(join(root, 'arch', 'zlib', '1.3.1'));
    mkdirSync(join(root, 'old-arch', 'old-pn', '2.0'));
    writeFileSync(join(root, 'arch', 'zlib', 'a-file'), 'x');
    await events(4);
    mkdirSync(join(root, 'arch', 'zlib', '1.3.1', 'temp'));
    expect(await events(5)).toEqual(['+arch', '+arch/zlib', '+arch/zlib/1.3.1', '+old-arch/old-pn/2.0']);
  });

  it('finds folders made before their parent was watched (mkdir -p in one go)', async () => {
    start(2);
    mkdirSync(join(root, 'arch', 'busybox', '1.37.0'), { recursive: true });
    expect(await events(3)).toEqual(['+arch', '+arch/busybox', '+arch/busybox/1.37.0']);
  });

  it('reports a removed folder after the folders below it, and a moved one as gone and new', async () => {
    mkdirSync(join(root, 'arch', 'zlib', '1.3.1'), { recursive: true });
    mkdirSync(join(root, 'arch', 'quilt', '0.68'), { recursive: true });
    start(2);
    rmSync(join(root, 'arch', 'zlib'), { recursive: true });
    expect(await events(2)).toEqual(['-arch/zlib/1.3.1', '-arch/zlib']);
    renameSync(join(root, 'arch', 'quilt', '0.68'), join(root, 'arch', 'quilt', '0.69'));
    expect((await events(4)).slice(2).sort()).toEqual(['+arch/quilt/0.69', '-arch/quilt/0.68']);
  });

  it('follows a folder that comes back after it went', async () => {
    start(2);
    mkdirSync(join(root, 'arch', 'pn', '1.0'), { recursive: true });
    await events(3);
    rmSync(join(root, 'arch'), { recursive: true });
    await events(6);
    mkdirSync(join(root, 'arch', 'pn', '1.0'), { recursive: true });
    expect(await events(9)).toEqual([
      '+arch',
      '+arch/pn',
      '+arch/pn/1.0',
      '-arch/pn/1.0',
      '-arch/pn',
      '-arch',
      '+arch',
      '+arch/pn',
      '+arch/pn/1.0',
    ]);
  });

  it('reports nothing after close', async () => {
    start(2);
    tree?.close();
    mkdirSync(join(root, 'arch'));
    expect(await events(1)).toEqual([]);
  });
});
