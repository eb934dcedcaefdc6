import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InodeSet, scanTree, withoutLoaders } from '../../src/system/du.js';
import { findBatches, parseFindError, walkWithFind } from '../../src/system/du-find.js';
import { UsageMerger } from '../../src/system/du-merge.js';
import { walkShared } from '../../src/system/du-share.js';
import { TreeWalker, WalkTally } from '../../src/system/du-walk.js';
import type { InodeNumber } from '../../src/system/inode-set.js';

// GNU du is the reference: every figure below is compared with what it prints.
const duBytes = async (...paths: string[]): Promise<number[]> => {
  const { stdout } = await execa('du', ['-sB1', ...paths]);
  return stdout.split('\n').map((line) => Number(line.split('\t')[0]));
};
const duInodes = async (p: string): Promise<number> => {
  const { stdout } = await execa('du', ['-s', '--inodes', p]);
  return Number(stdout.split('\t')[0]);
};
const blocksOf = (p: string) => fs.lstatSync(p).blocks * 512;

const write = (p: string, bytes: number) => {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, Buffer.alloc(bytes, 7));
};

/**
 * A miniature TMPDIR: recipe sysroots hard-linked from sysroots-components, a link shared
 * by two recipes, links inside one folder, symlinks (file, folder, dangling), a sparse file,
 * empty folders, a file at the root.
 */
function makeTree(root: string) {
  const comp = path.join(root, 'sysroots-components/core2-64/zlib/usr/lib');
  write(path.join(comp, 'libz.so.1.3'), 90_000);
  write(path.join(comp, 'libz.a'), 130_000);
  const zlib = path.join(root, 'work/core2-64/zlib/1.3');
  const curl = path.join(root, 'work/core2-64/curl/8.0');
  for (const recipe of [zlib, curl]) {
    fs.mkdirSync(path.join(recipe, 'recipe-sysroot/usr/lib'), { recursive: true });
    fs.linkSync(path.join(comp, 'libz.so.1.3'), path.join(recipe, 'recipe-sysroot/usr/lib/libz.so.1.3'));
  }
  fs.linkSync(path.join(comp, 'libz.a'), path.join(zlib, 'recipe-sysroot/usr/lib/libz.a'));
  write(path.join(zlib, 'build/libz.o'), 20_000);
  fs.linkSync(path.join(zlib, 'build/libz.o'), path.join(zlib, 'build/libz-copy.o'));
  write(path.join(curl, 'image/usr/bin/curl'), 250_000);
  fs.symlinkSync('curl', path.join(curl, 'image/usr/bin/curl-link'));
  fs.symlinkSync('../../../../zlib', path.join(curl, 'zlib-dir-link'));
  fs.symlinkSync('/no/such/target', path.join(curl, 'dangling'));
  // Symlink loops: never followed, each counted as the small link it is.
  fs.symlinkSync('.', path.join(curl, 'self-loop'));
  fs.symlinkSync('loop-b', path.join(curl, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(curl, 'loop-b'));
  const sparse = path.join(curl, 'build/sparse.img');
  write(sparse, 0);
  const fd = fs.openSync(sparse, 'r+');
  fs.writeSync(fd, Buffer.from('x'), 0, 1, 5_000_000);
  fs.ftruncateSync(fd, 50_000_000);
  fs.closeSync(fd);
  fs.mkdirSync(path.join(curl, 'temp'));
  fs.mkdirSync(path.join(root, 'stamps/core2-64/empty'), { recursive: true });
  write(path.join(root, 'abi_version'), 3);
  write(path.join(root, 'work/core2-64/zlib/stray-file'), 5000);
  return { comp, zlib, curl };
}

describe.runIf(process.platform === 'linux')('scanTree', () => {
  let root = '';
  let tree: ReturnType<typeof makeTree>;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-du-'));
    tree = makeTree(root);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  // workersFirst: find processes or worker threads start at once and get the first folders, so
  // even this small tree is handed over (on its own, scanTree hands over no walk this short).
  it.each([
    ['find', 0],
    ['find', 1],
    ['find', 3],
    ['threads', 0],
    ['threads', 1],
    ['threads', 3],
  ] as const)('equals du -sB1 and du --inodes (%s, %i workers)', async (engine, workers) => {
    const result = await scanTree(root, { workers, workersFirst: true, engine });
    expect(result.bytes).toBe((await duBytes(root))[0]);
    expect(result.inodes).toBe(await duInodes(root));
    expect(result.errors).toEqual([]);
    expect(result.dirs).toBe(Number((await execa('find', [root, '-type', 'd'])).stdout.split('\n').length));
    expect(result.files).toBe(
      Number((await execa('find', [root, '!', '-type', 'd'])).stdout.split('\n').length),
    );
  });

  it.each(['find', 'threads'] as const)(
    'gives each folder what du prints for it alone (%s)',
    async (engine) => {
      const result = await scanTree(root, { groupDepth: 4, workers: 2, workersFirst: true, engine });
      const folders = [
        'work',
        'work/core2-64',
        'work/core2-64/zlib',
        'work/core2-64/zlib/1.3',
        'sysroots-components',
      ];
      const expected = await duBytes(...folders.map((f) => path.join(root, f)).map((p) => p));
      // du given several folders would not recount links across them: ask one at a time.
      for (const [i, folder] of folders.entries()) {
        const [alone] = await duBytes(path.join(root, folder));
        expect(result.groups.get(folder)?.bytes, folder).toBe(alone);
        if (i === 0) expect(expected[0]).toBe(alone);
      }
      expect(result.groups.get('')?.bytes).toBe(result.bytes);
      // Folders deeper than groupDepth are part of their ancestor's group.
      expect(result.groups.has('work/core2-64/zlib/1.3/build')).toBe(false);
    },
  );

  it.each(['find', 'threads'] as const)(
    'splits shared and unique bytes, each inode attributed once (%s)',
    async (engine) => {
      const { groups, bytes } = await scanTree(root, {
        groupDepth: 4,
        workers: 2,
        workersFirst: true,
        engine,
      });
      const libSo = blocksOf(path.join(tree.comp, 'libz.so.1.3'));
      const libA = blocksOf(path.join(tree.comp, 'libz.a'));
      const zlib = groups.get('work/core2-64/zlib/1.3')!;
      const curl = groups.get('work/core2-64/curl/8.0')!;
      const components = groups.get('sysroots-components')!;
      // Links inside one folder (libz.o, libz-copy.o) stay unique to it.
      expect(zlib.uniqueBytes).toBe(zlib.bytes - libSo - libA);
      expect(curl.uniqueBytes).toBe(curl.bytes - libSo);
      expect(components.uniqueBytes).toBe(components.bytes - libSo - libA);
      // libz.so is shared by both recipes: unique to work/ and work/core2-64, not to one recipe.
      expect(groups.get('work')!.uniqueBytes).toBe(groups.get('work')!.bytes - libSo - libA);
      // 'sysroots-components' sorts before 'work': shared inodes are attributed there.
      expect(components.attributedBytes).toBe(components.bytes);
      expect(zlib.attributedBytes).toBe(zlib.uniqueBytes);
      const topLevel = [...groups].filter(([key]) => key !== '' && !key.includes('/'));
      const rootOwn = blocksOf(root) + blocksOf(path.join(root, 'abi_version'));
      expect(topLevel.reduce((sum, [, g]) => sum + g.attributedBytes, rootOwn)).toBe(bytes);
      expect(groups.get('')!.attributedBytes).toBe(bytes);
    },
  );

  it('attributes the same way whatever walks: this thread, find processes, worker threads', async () => {
    const one = await scanTree(root, { groupDepth: 5, workers: 0 });
    for (const groupDepth of [1, 3]) {
      const alone = await scanTree(root, { groupDepth, workers: 0 });
      const shared = await scanTree(root, { groupDepth, workers: 3, workersFirst: true, engine: 'find' });
      expect([...shared.groups], `find, depth ${groupDepth}`).toEqual([...alone.groups]);
    }
    for (const engine of ['find', 'threads'] as const) {
      const three = await scanTree(root, { groupDepth: 5, workers: 3, workersFirst: true, engine });
      expect([...three.groups]).toEqual([...one.groups]);
    }
  });

  it('does not recount inodes in a shared seen set, as du does across its arguments', async () => {
    const seen = new InodeSet();
    const components = await scanTree(path.join(root, 'sysroots-components'), { seen, workers: 0 });
    const work = await scanTree(path.join(root, 'work'), { seen, workers: 0, groupDepth: 1 });
    const [duComponents, duWork] = await duBytes(
      path.join(root, 'sysroots-components'),
      path.join(root, 'work'),
    );
    expect(components.bytes).toBe(duComponents);
    expect(work.bytes).toBe(duWork);
    expect(work.groups.get('')!.bytes).toBe((await duBytes(path.join(root, 'work')))[0]);
    expect(work.groups.get('')!.attributedBytes).toBe(duWork);
    expect(seen.size).toBe(3);
  });

  it('counts a symlink or a file given as the root, without following it', async () => {
    const link = path.join(tree.curl, 'zlib-dir-link');
    expect((await scanTree(link)).bytes).toBe((await duBytes(link))[0]);
    const file = path.join(tree.comp, 'libz.a');
    const result = await scanTree(file);
    expect(result.bytes).toBe((await duBytes(file))[0]);
    expect(result).toMatchObject({ files: 1, dirs: 0, inodes: 1 });
  });

  it('starts no worker thread nor find for a walk that ends within its first slice', async () => {
    const started: number[] = [];
    const merger = new UsageMerger(0, new InodeSet());
    const startWorker = () => {
      started.push(1);
      throw new Error('no worker expected');
    };
    const task = { path: root, depth: 0, group: '' };
    const finds = () => {
      started.push(2);
      return 2;
    };
    const errors = await walkShared(task, merger, {
      groupDepth: 0,
      workers: 3,
      workersFirst: false,
      startWorker,
      finds,
    });
    expect(errors).toEqual([]);
    expect(started).toEqual([]);
    // The root's own blocks are added by scanTree, not by the walk.
    expect(merger.finish().bytes + blocksOf(root)).toBe((await duBytes(root))[0]);
  });

  it('collects a missing root as an error instead of throwing', async () => {
    const result = await scanTree(path.join(root, 'gone'));
    expect(result).toMatchObject({
      bytes: 0,
      inodes: 0,
      errors: [{ path: path.join(root, 'gone'), code: 'ENOENT' }],
    });
  });

  it("walks the root's folders whole, one after the other, in do_rm_work's sorted order", () => {
    const wd = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-du-order-'));
    try {
      for (const name of ['temp', 'sources', 'build', 'packages-split', 'package', 'image']) {
        write(path.join(wd, name, 'sub', 'f'), 100);
      }
      const read: string[] = [];
      const walker = new TreeWalker(0, () => {}, true);
      walker.stack.push({ path: wd, depth: 0, group: '' });
      while (walker.stack.length > 0) {
        read.push(path.relative(wd, walker.stack.at(-1)!.path));
        walker.run(1);
      }
      const order = ['build', 'image', 'package', 'packages-split', 'sources', 'temp'];
      expect(read).toEqual(['', ...order.flatMap((name) => [name, `${name}/sub`])]);
    } finally {
      fs.rmSync(wd, { recursive: true });
    }
  });

  it('collects folders that vanish between listing and reading (rm_work at work)', () => {
    const walker = new TreeWalker(0, () => {});
    walker.stack.push({ path: path.join(root, 'work/core2-64/removed-by-rm_work'), depth: 3, group: '' });
    walker.stack.push({ path: path.join(tree.comp, 'libz.a'), depth: 3, group: '' });
    expect(walker.run(10)).toBe(false);
    expect(walker.totals().errors.map((e) => e.code)).toEqual(['ENOTDIR', 'ENOENT']);
  });

  it.skipIf(process.getuid?.() === 0)('counts an unreadable folder itself and reports EACCES', async () => {
    const locked = path.join(root, 'stamps/locked');
    fs.mkdirSync(locked);
    write(path.join(locked, 'hidden'), 10_000);
    fs.chmodSync(locked, 0);
    try {
      const result = await scanTree(root, { workers: 0 });
      expect(result.errors).toEqual([{ path: locked, code: 'EACCES' }]);
      expect(result.bytes).toBe((await duBytes(root).catch((e) => [Number(e.stdout.split('\t')[0])]))[0]);
    } finally {
      fs.chmodSync(locked, 0o755);
      fs.rmSync(locked, { recursive: true });
    }
  });
});

describe.runIf(process.platform === 'linux')('scanTree on a wider tree', () => {
  let root = '';
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-du-wide-'));
    const shared = path.join(root, 'shared');
    fs.mkdirSync(shared);
    for (let i = 0; i < 40; i++) write(path.join(shared, `lib${i}.so`), 1000 * (i + 1));
    for (let a = 0; a < 12; a++) {
      for (let b = 0; b < 12; b++) {
        const dir = path.join(root, `a${a}`, `b${b}`, 'c');
        for (let f = 0; f < 6; f++) write(path.join(dir, `f${f}`), (a * 131 + b * 17 + f * 1031) % 9000);
        fs.linkSync(path.join(shared, `lib${(a + b) % 40}.so`), path.join(dir, 'lib.so'));
      }
    }
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads find through FIFOs (many batches) as through spawn pipes (a hand-off of a few, or all to one process), to the byte', async () => {
    const tasks = Array.from({ length: 12 }, (_, a) => ({
      path: path.join(root, `a${a}`),
      depth: 1,
      group: '',
    }));
    const walk = async (processes: number) => {
      const links: number[] = [];
      const acc = new WalkTally((batch) => links.push(batch.count));
      await walkWithFind(tasks, acc, 0, processes);
      acc.flushLinks();
      return {
        tally: acc.tally(''),
        singles: acc.singleInodes,
        errors: acc.errors,
        links: links.reduce((a, b) => a + b, 0),
      };
    };
    // Two alone per process, then half of what is left each time.
    expect(findBatches(tasks, 2).map((batch) => batch.length)).toEqual([1, 1, 1, 1, 4, 2, 1, 1]);
    expect(findBatches(tasks, 1)).toEqual([tasks]);
    const viaFifo = await walk(2); // 8 batches for 2 processes: FIFOs
    const viaPipes = await walk(12); // one batch each: spawn's pipes
    const oneFind = await walk(1); // every folder to one find: one start, spawn's pipes
    expect(viaFifo).toEqual(viaPipes);
    expect(oneFind).toEqual(viaPipes);
    const own = tasks.reduce((sum, t) => sum + blocksOf(t.path), 0);
    const du = (await duBytes(...tasks.map((t) => t.path))).reduce((a, b) => a + b, 0);
    // The start folders' own blocks are counted by whoever hands them off; links once in the merger.
    expect(viaFifo.tally.bytes).toBeLessThanOrEqual(du - own);
    expect(viaFifo.tally.dirs).toBe(12 * 12 * 2);
    expect(viaFifo.links).toBe(12 * 12);
  });

  it('keeps exact totals when workers hand each other folders', async () => {
    const [expected] = await duBytes(root);
    for (const workers of [2, 4]) {
      const result = await scanTree(root, { workers, groupDepth: 2, workersFirst: true });
      expect(result.bytes).toBe(expected);
      expect(result.inodes).toBe(await duInodes(root));
      expect(result.groups.get('a3/b4')!.bytes).toBe((await duBytes(path.join(root, 'a3/b4')))[0]);
    }
  });
});

describe.runIf(process.platform === 'linux')('scanTree while the tree changes or cannot be read', () => {
  let root = '';
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-du-live-'));
    fs.chmodSync(root, 0o755);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }), 60_000);

  it('collects a start folder that vanished before find reached it, and counts the rest', async () => {
    const kept = path.join(root, 'kept');
    write(path.join(kept, 'a'), 9000);
    const acc = new WalkTally(() => {});
    const tasks = [
      { path: path.join(root, 'removed-by-rm_work'), depth: 1, group: '' },
      { path: kept, depth: 1, group: '' },
    ];
    await walkWithFind(tasks, acc, 0, 1);
    expect(acc.errors).toEqual([{ path: tasks[0]!.path, code: 'ENOENT' }]);
    expect(acc.tally('')).toEqual({ bytes: blocksOf(path.join(kept, 'a')), files: 1, dirs: 0 });
    fs.rmSync(kept, { recursive: true });
  });

  it.each(['find', 'threads'] as const)('survives folders deleted mid-scan (%s)', async (engine) => {
    const live = path.join(root, `live-${engine}`);
    for (let d = 0; d < 40; d++)
      for (let f = 0; f < 20; f++) write(path.join(live, `d${d}`, `s${f % 4}`, `f${f}`), 700);
    const [before] = await duBytes(live);
    const scanning = scanTree(live, { workers: 1, workersFirst: true, engine });
    // Deleted while the walk runs, as rm_work does during a build.
    for (let d = 39; d >= 20; d--) fs.rmSync(path.join(live, `d${d}`), { recursive: true, force: true });
    const result = await scanning;
    const [after] = await duBytes(live);
    expect(result.bytes).toBeGreaterThanOrEqual(after!);
    expect(result.bytes).toBeLessThanOrEqual(before!);
    for (const error of result.errors) expect(error.code).toBe('ENOENT');
    // Once nothing changes, the same scan is byte-exact again.
    expect((await scanTree(live, { workers: 1, workersFirst: true, engine })).bytes).toBe(after);
  });

  // As root every folder is readable: the scan runs as nobody, in a child process.
  it.runIf(process.getuid?.() === 0)(
    'counts an unreadable folder itself and reports EACCES, as nobody',
    async () => {
      const tree = path.join(root, 'locked-tree');
      write(path.join(tree, 'open/a'), 5000);
      write(path.join(tree, 'locked/hidden'), 10_000);
      write(path.join(tree, 'locked/sub/deeper'), 10_000);
      fs.chmodSync(path.join(tree, 'locked'), 0);
      const asNobody = (script: string) =>
        execa(
          'runuser',
          ['-u', 'nobody', '--', process.execPath, '--import', 'tsx', '--input-type=module', '-e', script],
          {
            cwd: path.join(import.meta.dirname, '../..'),
            reject: false,
          },
        );
      const du = await asNobody(`
      const { execFileSync } = await import('node:child_process');
      try { execFileSync('du', ['-sB1', ${JSON.stringify(tree)}], { stdio: 'pipe' }); } catch (e) { process.stdout.write(e.stdout.toString()); }`);
      const expected = Number(du.stdout.split('\t')[0]);
      expect(expected).toBeGreaterThan(0);
      for (const engine of ['find', 'threads']) {
        const scan = await asNobody(`
        const { scanTree } = await import('./src/system/du.ts');
        const r = await scanTree(${JSON.stringify(tree)}, { workers: 1, workersFirst: true, engine: '${engine}' });
        process.stdout.write(JSON.stringify({ bytes: r.bytes, errors: r.errors }));`);
        expect(JSON.parse(scan.stdout), engine).toEqual({
          bytes: expected,
          errors: [{ path: path.join(tree, 'locked'), code: 'EACCES' }],
        });
      }
    },
  );
});

describe('parseFindError', () => {
  it("reads find's C-locale messages back as error codes", () => {
    expect(parseFindError("find: '/t/work/x y': Permission denied")).toEqual({
      path: '/t/work/x y',
      code: 'EACCES',
    });
    expect(parseFindError("find: '/t/a': No such file or directory")).toEqual({
      path: '/t/a',
      code: 'ENOENT',
    });
    expect(parseFindError('find: something else')).toEqual({ path: 'something else', code: 'EUNKNOWN' });
  });
});

describe('InodeSet', () => {
  it('keeps pairs exactly, numbers past 2^53 as text, across growth and absorb', () => {
    const a = new InodeSet();
    for (let i = 0; i < 5000; i++) expect(a.add(2049, i * 7919)).toBe(true);
    expect(a.add(2049, 0)).toBe(false);
    expect(a.add(2049, '18446744073709551615')).toBe(true);
    expect(a.add(2049, '18446744073709551615')).toBe(false);
    expect(a.has(2049, 7919 * 4999)).toBe(true);
    expect(a.has(2050, 7919)).toBe(false);
    const b = new InodeSet();
    b.add(2049, 1);
    b.add(2049, 7919);
    b.add(46, 7919);
    a.absorb(b);
    expect(a.size).toBe(5003);
    expect([...a.entries()].filter(([dev]) => dev === 46)).toEqual([[46, 7919]]);
    expect(a.has(2049, 2 ** 53 - 2)).toBe(false);
    expect(a.add(2049, 2 ** 53 - 2)).toBe(true);
    expect(a.has(2049, 2 ** 53 - 2)).toBe(true);
  });

  it('holds what a Set holds, through growth, on both sides of 2^32', () => {
    const set = new InodeSet();
    const oracle = new Set<string>();
    const edges: InodeNumber[] = [
      0,
      1,
      2 ** 32 - 2,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 40 + 7,
      2 ** 53 - 1,
      '9007199254740993',
    ];
    let x = 12345;
    const next = () => {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      return x;
    };
    const inos: InodeNumber[] = [...edges];
    for (let i = 0; i < 20_000; i++) inos.push(i % 5 === 0 ? next() * 4096 + (i % 4096) : next() % 50_000);
    for (const [i, ino] of inos.entries()) {
      const dev = i % 3 === 0 ? 2049 : 64768;
      const key = `${dev}:${ino}`;
      expect(set.add(dev, ino), key).toBe(!oracle.has(key));
      oracle.add(key);
    }
    expect(set.size).toBe(oracle.size);
    for (const ino of [...edges, 3, 50_001, 2 ** 33]) {
      for (const dev of [2049, 64768, 1])
        expect(set.has(dev, ino), `${dev}:${ino}`).toBe(oracle.has(`${dev}:${ino}`));
    }
    expect(new Set([...set.entries()].map(([dev, ino]) => `${dev}:${ino}`))).toEqual(oracle);
    const other = new InodeSet();
    other.add(2049, 2 ** 32 + 5);
    other.add(2049, 0);
    other.add(7, 1);
    set.absorb(other);
    expect(set.has(2049, 2 ** 32 + 5) && set.has(7, 1)).toBe(true);
    expect(set.size).toBe(oracle.size + (oracle.has('2049:4294967301') ? 0 : 1) + 1);
  });
});

describe('withoutLoaders', () => {
  it('drops module loaders (tsx runs the bench that way) and keeps every other Node flag', () => {
    const tsx = ['--require', '/x/tsx/preflight.cjs', '--import', 'file:///x/tsx/loader.mjs'];
    expect(withoutLoaders([...tsx, '--max-old-space-size=4096', '--cpu-prof'])).toEqual([
      '--max-old-space-size=4096',
      '--cpu-prof',
    ]);
    expect(withoutLoaders(['--input-type=module', '--input-type', 'commonjs', '--trace-gc'])).toEqual([
      '--trace-gc',
    ]);
    expect(withoutLoaders(['--import=tsx', '-r', 'x.cjs', '--loader', 'l.mjs', '--trace-gc'])).toEqual([
      '--trace-gc',
    ]);
  });
});
