// A big buildstats folder is read by find and head processes (src/bitbake/buildstats-head.ts):
// their output must split back into exactly the files, and the result must be the in-process
// reader's, whatever the files hold.

import { execFileSync } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readBuildstatsBuild } from '../../src/bitbake/buildstats.js';
import { HEAD_LIMIT, readFoldersWithHead } from '../../src/bitbake/buildstats-head.js';
import { HeadOutputReader } from '../../src/bitbake/buildstats-head-output.js';
import { openFifoPipes, readFifo } from '../../src/system/fifo-pipe.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';

const pipe = () => openFifoPipes(1)![0]!;

const cleanups = cleanupsAfterEach();
const scratch = () => {
  const dir = tempDir('rambake-head-');
  cleanups.push(dir.cleanup);
  return dir.path;
};

const fixture = fileURLToPath(
  new URL(
    '../fixtures/records/buildstats-setscene-running-failed-truncated/20251130142627/',
    import.meta.url,
  ),
);
const sample = (pf: string, task: string) => readFileSync(join(fixture, pf, task), 'utf8');

type Seen = [folder: string, name: string, text: string | undefined];

function split(output: Buffer, chunk: number): { seen: Seen[]; error?: string } {
  const seen: Seen[] = [];
  const reader = new HeadOutputReader((folder, name, buf, from, to) =>
    seen.push([folder, name, buf === undefined ? undefined : buf.toString('utf8', from, to)]),
  );
  for (let i = 0; i < output.length; i += chunk) reader.push(output.subarray(i, i + chunk));
  reader.end();
  return reader.error === undefined ? { seen } : { seen, error: reader.error };
}

// What find and head write: find announces each regular file (\x01) or names another entry
// (\0), then head prints the announced files, each run starting with its /dev/null marker.
const announce = (...paths: string[]) => paths.map((p) => `\n==> \x01./${p}\0`).join('');
const other = (path: string) => `\n==> \0./${path}\0`;
const run = (...files: [string, string][]) =>
  `==> /dev/null <==\n${files.map(([p, text]) => `\n==> ./${p} <==\n${text}`).join('')}`;
const out = (...parts: string[]) => Buffer.from(parts.join(''));

describe('HeadOutputReader', () => {
  // Two head runs, find's record of a FIFO between them, a torn last line right before the
  // second run's marker, an empty file, a name that is not ASCII, a line that looks like a
  // header of no announced file, and a last file without a final newline.
  const output = out(
    announce('zlib-1.3.1-r0/do_fetch', 'zlib-1.3.1-r0/do_compile'),
    run(
      ['zlib-1.3.1-r0/do_fetch', 'Event: TaskStarted \nStarted: 1.00 \n'],
      ['zlib-1.3.1-r0/do_compile', 'Event: TaskStarted \nChild rusage ru_ut'],
    ),
    other('zlib-1.3.1-r0/do_fifo'),
    announce('bäsh-5.2-r0/do_install', 'bäsh-5.2-r0/do_empty', 'bäsh-5.2-r0/do_torn'),
    run(
      ['bäsh-5.2-r0/do_install', 'Started: 2.00 \nline ==> ./x <==\n'],
      ['bäsh-5.2-r0/do_empty', ''],
      ['bäsh-5.2-r0/do_torn', 'utime: 1'],
    ),
    announce('empty-1.0-r0/do_last'),
    run(['empty-1.0-r0/do_last', 'Ended: 3.00']),
  );
  const expected: Seen[] = [
    ['zlib-1.3.1-r0', 'do_fetch', 'Event: TaskStarted \nStarted: 1.00 \n'],
    ['zlib-1.3.1-r0', 'do_compile', 'Event: TaskStarted \nChild rusage ru_ut'],
    ['zlib-1.3.1-r0', 'do_fifo', undefined],
    ['bäsh-5.2-r0', 'do_install', 'Started: 2.00 \nline ==> ./x <==\n'],
    ['bäsh-5.2-r0', 'do_empty', ''],
    ['bäsh-5.2-r0', 'do_torn', 'utime: 1'],
    ['empty-1.0-r0', 'do_last', 'Ended: 3.00'],
  ];

  it('splits every record exactly, however the output is cut into chunks', () => {
    for (const chunk of [1, 2, 3, 5, 7, 17, 64, output.length])
      expect(split(output, chunk), `chunks of ${chunk}`).toEqual({ seen: expected });
  });

  it('reads an output that starts with an entry of find, and an empty one', () => {
    const first = Buffer.concat([out(other('zlib-1.3.1-r0/link')), output]);
    expect(split(first, 5).seen).toEqual([['zlib-1.3.1-r0', 'link', undefined], ...expected]);
    expect(split(Buffer.alloc(0), 1)).toEqual({ seen: [] });
  });

  it("sees a file that holds the next file's header: the real header comes one file late", () => {
    const spoof = out(
      announce('a-1-r0/do_x', 'a-1-r0/do_y'),
      run(['a-1-r0/do_x', 'utime: 1\n\n==> ./a-1-r0/do_y <==\nutime: 9\n'], ['a-1-r0/do_y', 'utime: 2\n']),
    );
    expect(split(spoof, 3).error).toMatch(/head printed a file find did not announce/);
    const last = out(announce('a-1-r0/do_x'), run(['a-1-r0/do_x', 'utime: 1\n\n==> ./a-1-r0/do_z <==\n']));
    expect(split(last, 3).error).toMatch(/did not announce/);
  });

  it('refuses a header for another file, a file never printed, a cut or foreign output', () => {
    expect(split(out(announce('a-1-r0/x'), run(['a-1-r0/y', 'z\n'])), 4).error).toMatch(
      /not for "\.\/a-1-r0\/x"/,
    );
    expect(split(out(announce('a-1-r0/x', 'a-1-r0/y'), run(['a-1-r0/x', 'z\n'])), 4).error).toMatch(
      /did not print "\.\/a-1-r0\/y"/,
    );
    expect(split(out(announce('a-1-r0/x'), '==> /dev/null <==\n\n==> ./a-1-r0/x <='), 4).error).toMatch(
      /does not end/,
    );
    expect(split(out('\n==> \x01./a-1-r0/do_compile'), 4).error).toMatch(/path does not end/);
    expect(split(out('Event: TaskStarted \nStarted: 1.0 \n'), 4).error).toMatch(/does not start/);
    expect(split(out('==> /dev/null <==\nleftover'), 4).error).toMatch(/after a head run marker/);
  });
});

/** A buildstats build folder of many PF folders whose files test the split. */
function writeBuild(dir: string): string[] {
  const compile = sample('zlib-1.3.1-r0', 'do_compile');
  const folders: string[] = [];
  for (let i = 0; i < 40; i++) {
    const pf = i === 7 ? 'bäsh 5.2-r0' : `recipe${i}-1.${i}-r0`;
    folders.push(pf);
    mkdirSync(join(dir, pf));
    writeFileSync(join(dir, pf, 'do_compile'), compile.replace('zlib-1.3.1-r0', pf));
    writeFileSync(join(dir, pf, 'do_configure'), sample('busybox-1.37.0-r0', 'do_configure'));
    writeFileSync(join(dir, pf, 'do_install'), sample('zlib-1.3.1-r0', 'do_install'));
    writeFileSync(join(dir, pf, 'do_package_setscene'), sample('zlib-1.3.1-r0', 'do_package_setscene'));
  }
  writeFileSync(join(dir, 'recipe3-1.3-r0', 'do_empty'), '');
  writeFileSync(join(dir, 'recipe4-1.4-r0', 'do_torn'), 'Event: TaskStarted \nStarted: 5.5 \nutime: 1');
  // Bigger than head's limit: read again whole by the checked reader.
  const big = `Event: TaskStarted \nStarted: 9.0 \n${'Future key: x\n'.repeat(Math.ceil(HEAD_LIMIT / 14))}`;
  writeFileSync(join(dir, 'recipe5-1.5-r0', 'do_big'), big);
  // Not regular files: given to the checked reader, not to head.
  symlinkSync(join(dir, 'recipe0-1.0-r0', 'do_compile'), join(dir, 'recipe6-1.6-r0', 'do_linked'));
  writeFileSync(join(dir, 'build_stats'), readFileSync(join(fixture, 'build_stats')));
  return folders;
}

describe('readBuildstatsBuild with find and head processes', () => {
  it('gives the in-process reader result, file for file', async () => {
    const dir = scratch();
    writeBuild(dir);
    const inThread = await readBuildstatsBuild(dir, { processes: 1 });
    const withHead = await readBuildstatsBuild(dir, { processes: 2 });
    expect(withHead).toEqual(inThread);
    expect(inThread.tasks).toHaveLength(40 * 4 + 4);
    expect(inThread.unreadable).toEqual([]);
    const big = inThread.tasks.find((t) => t.task === 'do_big')!;
    expect(Object.keys(big.other)).toEqual(['Future key']);
    expect(inThread.tasks.find((t) => t.task === 'do_torn')?.utime).toBe(1);
  });

  it('reads the folders with head when the output splits, and hands the batch back when it does not', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    const names: string[] = [];
    const clean = await readFoldersWithHead(dir, folders, pipe(), (folder, name, buf) =>
      names.push(`${folder}/${name}${buf === undefined ? ' (other)' : ''}`),
    );
    expect(clean).toBe(true);
    const listed = folders.flatMap((f) => readdirSync(join(dir, f)).map((n) => `${f}/${n}`));
    expect(names.map((n) => n.replace(' (other)', '')).sort()).toEqual(listed.sort());
    expect(names).toContain('recipe6-1.6-r0/do_linked (other)');

    // A line that looks like head's header: no file was announced under that name, so the batch
    // is refused, and readBuildstatsBuild reads it in-process to the same result.
    writeFileSync(
      join(dir, 'recipe1-1.1-r0', 'do_odd'),
      'Started: 1.0 \n\n==> ./recipe2-1.2-r0/do_x <==\nutime: 2\n',
    );
    expect(await readFoldersWithHead(dir, folders, pipe(), () => {})).toBe(false);
    const withHead = await readBuildstatsBuild(dir, { processes: 2 });
    expect(withHead).toEqual(await readBuildstatsBuild(dir, { processes: 1 }));
    expect(withHead.tasks.find((t) => t.task === 'do_odd')?.skipped).toEqual([
      '==> ./recipe2-1.2-r0/do_x <==',
    ]);
  });

  it('notes a folder that vanished, as the in-process reader does', async () => {
    const dir = scratch();
    const folders = writeBuild(dir);
    execFileSync('rm', ['-r', join(dir, folders[3]!)]);
    // The listing still names it: find fails on it, and the batch is read in-process.
    expect(await readFoldersWithHead(dir, folders, pipe(), () => {})).toBe(false);
  });
});

describe('openFifoPipes', () => {
  it('makes pipes that carry bytes and leaves nothing in the temp dir', async () => {
    const dir = scratch();
    const before = process.env.TMPDIR;
    process.env.TMPDIR = dir;
    try {
      const pipes = openFifoPipes(2)!;
      expect(pipes).toHaveLength(2);
      expect(readdirSync(dir)).toEqual([]);
      for (const p of pipes) {
        writeSync(p.write, 'one ');
        writeSync(p.write, 'two');
        closeSync(p.write);
        const got: string[] = [];
        const socket = readFifo(p.read, (bytes, length) => got.push(bytes.toString('utf8', 0, length)));
        await new Promise((resolve) => socket.on('close', resolve));
        expect(got.join('')).toBe('one two');
      }
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });
});
