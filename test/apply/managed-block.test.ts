import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnsafeEditError } from '../../src/errors.js';
import {
  ADDED_BREAK_NOTE,
  BLOCK_BEGIN,
  checkBlockLines,
  findBlock,
  insertBlock,
  removeBlock,
  renderKasSnippet,
  unifiedDiff,
} from '../../src/plan/managed-block.js';
import { ROOT } from '../helpers/exec.js';

const fixture = (name: string) => readFileSync(join(ROOT, 'test', 'fixtures', 'apply', name), 'latin1');
const LINES = [
  'TMPDIR = "/build/tmp-ram"',
  'INHERIT += "rm_work"',
  'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},1G,100K"',
];

describe('insertBlock / removeBlock', () => {
  it('appends one block and cuts it out again byte for byte', () => {
    const before = 'MACHINE ??= "qemux86-64"\n';
    const applied = insertBlock(before, LINES).text;
    expect(applied.startsWith(before)).toBe(true);
    expect(applied.split(BLOCK_BEGIN)).toHaveLength(2);
    expect(applied).toContain(`${LINES.join('\n')}\n# <<< rambake managed block (sha256:`);
    expect(removeBlock(applied).text).toBe(before);
  });

  it('changes nothing on a second apply with the same lines', () => {
    const once = insertBlock(fixture('crlf-local.conf'), LINES);
    const twice = insertBlock(once.text, LINES);
    expect(twice.changed).toBe(false);
    expect(twice.text).toBe(once.text);
  });

  it('replaces the block in place when the plan changes, keeping text the user added after it', () => {
    const applied = `${insertBlock('A = "1"\n', LINES).text}B = "2"\n`;
    const replaced = insertBlock(applied, ['TMPDIR = "/other"']).text;
    expect(replaced.endsWith('B = "2"\n')).toBe(true);
    expect(replaced).toContain('TMPDIR = "/other"');
    expect(replaced).not.toContain('rm_work');
    expect(removeBlock(replaced).text).toBe('A = "1"\nB = "2"\n');
  });

  it('writes the block with CRLF in a CRLF file and reverts it exactly', () => {
    const before = fixture('crlf-local.conf');
    const applied = insertBlock(before, LINES).text;
    expect(
      applied
        .slice(before.length)
        .split('\n')
        .slice(0, -1)
        .every((l) => l.endsWith('\r')),
    ).toBe(true);
    expect(removeBlock(applied).text).toBe(before);
  });

  it('ends the last line of a file without a final newline, and takes that break back on revert', () => {
    const before = fixture('no-final-newline.conf');
    const applied = insertBlock(before, LINES).text;
    expect(applied).toContain(`CONF_VERSION = "2"\n${BLOCK_BEGIN}\n${ADDED_BREAK_NOTE}\n`);
    expect(removeBlock(applied).text).toBe(before);
  });

  it('keeps the added break when the user wrote more lines after the block', () => {
    const applied = `${insertBlock('A = "1"', LINES).text}B = "2"\n`;
    expect(removeBlock(applied).text).toBe('A = "1"\nB = "2"\n');
  });

  it('keeps edits made outside the block', () => {
    const applied = insertBlock('A = "1"\n', LINES).text;
    const edited = `# added by the user\n${applied.replace('A = "1"', 'A = "2"')}`;
    expect(removeBlock(edited).text).toBe('# added by the user\nA = "2"\n');
  });

  it('makes an empty file hold only the block, and empties it again', () => {
    const applied = insertBlock('', LINES).text;
    expect(applied.startsWith(BLOCK_BEGIN)).toBe(true);
    expect(removeBlock(applied).text).toBe('');
  });

  it('refuses a hand-edited block without force, and replaces or removes it with force', () => {
    const applied = insertBlock('A = "1"\n', LINES).text;
    const edited = applied.replace('/build/tmp-ram', '/elsewhere');
    expect(findBlock(edited)?.intact).toBe(false);
    expect(() => insertBlock(edited, LINES)).toThrow(UnsafeEditError);
    expect(() => removeBlock(edited)).toThrow(UnsafeEditError);
    expect(insertBlock(edited, LINES, { force: true }).text).toBe(applied);
    expect(removeBlock(edited, { force: true }).text).toBe('A = "1"\n');
  });

  it('leaves marker look-alikes in user text alone', () => {
    const before = fixture('lookalike-markers.conf');
    expect(findBlock(before)).toBeUndefined();
    expect(removeBlock(before).changed).toBe(false);
    const applied = insertBlock(before, LINES).text;
    expect(findBlock(applied)?.lines).toEqual(LINES);
    expect(removeBlock(applied).text).toBe(before);
  });

  it('refuses a file whose last line continues with a backslash', () => {
    expect(() => insertBlock(fixture('trailing-continuation.conf'), LINES)).toThrow(/line continuation/);
  });
});

describe('500 generated conf files go through apply → revert byte-identical', () => {
  // A small seeded generator (mulberry32): the same files on every run, so a failure repeats.
  function rng(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const pieces = [
    () => 'MACHINE ??= "qemux86-64"',
    () => 'DL_DIR ?= "${TOPDIR}/downloads"',
    () => 'IMAGE_INSTALL:append = " strace"',
    () => '# a comment with "quotes" and ${VAR}',
    () => '',
    () => '   ',
    () => 'EXTRA_OECONF = "--a \\\n    --b \\\n    --c"',
    () => 'TMPDIR = "${TOPDIR}/tmp"',
    () => BLOCK_BEGIN,
    () => '# <<< rambake managed block (sha256:0000) <<<',
    () => `# <<< rambake managed block (sha256:${'a'.repeat(64)}) <<< trailing`,
    () => '#>>> rambake managed block',
    () => 'UNICODE = "caf\u00c3\u00a9"',
    () => 'TABS\t=\t"x"',
  ];

  it('holds for every file', () => {
    const random = rng(20251202);
    for (let i = 0; i < 500; i++) {
      const eol = random() < 0.3 ? '\r\n' : '\n';
      const count = Math.floor(random() * 12);
      const lines: string[] = [];
      for (let j = 0; j < count; j++)
        lines.push(pieces[Math.floor(random() * pieces.length)]!().replaceAll('\n', eol));
      let text = lines.join(eol);
      if (count > 0 && random() < 0.6) text += eol;
      const block = LINES.slice(0, 1 + Math.floor(random() * LINES.length));
      const applied = insertBlock(text, block);
      expect(findBlock(applied.text)?.lines, `file ${i}`).toEqual(block);
      expect(insertBlock(applied.text, block).text, `file ${i} idempotent`).toBe(applied.text);
      expect(removeBlock(applied.text).text, `file ${i}: ${JSON.stringify(text)}`).toBe(text);
    }
  });
});

describe('unifiedDiff', () => {
  it('shows the appended block with three lines of context', () => {
    const before = 'a\nb\nc\nd\n';
    const diff = unifiedDiff(before, `${before}X\nY\n`, 'conf/auto.conf', 'conf/auto.conf');
    expect(diff).toBe(
      ['--- conf/auto.conf', '+++ conf/auto.conf', '@@ -2,3 +2,5 @@', ' b', ' c', ' d', '+X', '+Y', ''].join(
        '\n',
      ),
    );
  });

  it('marks a missing final newline and a new file', () => {
    expect(unifiedDiff('a', 'a\nX\n', 'f', 'f')).toBe(
      ['--- f', '+++ f', '@@ -1,1 +1,2 @@', '-a', '\\ No newline at end of file', '+a', '+X', ''].join('\n'),
    );
    expect(unifiedDiff(undefined, 'X\n', 'f', 'f')).toBe(
      ['--- /dev/null', '+++ f', '@@ -0,0 +1,1 @@', '+X', ''].join('\n'),
    );
  });

  it('is empty when nothing changes', () => {
    expect(unifiedDiff('a\n', 'a\n', 'f', 'f')).toBe('');
  });
});

describe('renderKasSnippet', () => {
  it('puts the lines under local_conf_header.rambake as a literal block', () => {
    expect(renderKasSnippet(['TMPDIR = "/t"', 'INHERIT += "rm_work"'])).toBe(
      'local_conf_header:\n  rambake: |\n    TMPDIR = "/t"\n    INHERIT += "rm_work"\n',
    );
  });
});

describe('checkBlockLines', () => {
  it('refuses BASE_WORKDIR, TMPDIR ?= and inherit, accepts the plan lines', () => {
    expect(() => checkBlockLines(['BASE_WORKDIR = "/ram/work"'])).toThrow(/BASE_WORKDIR/);
    expect(() => checkBlockLines(['TMPDIR ?= "/ram"'])).toThrow(/TMPDIR/);
    expect(() => checkBlockLines(['inherit rm_work'])).toThrow(/inherit/);
    expect(() => checkBlockLines(LINES)).not.toThrow();
  });
});
