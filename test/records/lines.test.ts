import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineSplitter, readLines } from '../../src/bitbake/lines.js';

function split(chunks: string[], maxLineBytes?: number) {
  const splitter = new LineSplitter(maxLineBytes === undefined ? {} : { maxLineBytes });
  const lines: [number, string][] = [];
  const push = (line: string, no: number) => {
    lines.push([no, line]);
  };
  for (const c of chunks) splitter.push(Buffer.from(c), push);
  splitter.end(push);
  return { lines, skipped: splitter.skippedLongLines, total: splitter.lines };
}

describe('LineSplitter', () => {
  it('joins lines across chunks, strips CR, keeps a last line without newline', () => {
    expect(split(['ab', 'c\r\nde\n', '\nf'])).toEqual({
      lines: [
        [1, 'abc'],
        [2, 'de'],
        [3, ''],
        [4, 'f'],
      ],
      skipped: 0,
      total: 4,
    });
  });

  it('keeps a multi-byte character split between chunks', () => {
    const bytes = Buffer.from('µs\n');
    const splitter = new LineSplitter();
    const lines: string[] = [];
    splitter.push(bytes.subarray(0, 1), (l) => lines.push(l));
    splitter.push(bytes.subarray(1), (l) => lines.push(l));
    expect(lines).toEqual(['µs']);
  });

  it('skips lines over the cap, whether they arrive in one chunk or many', () => {
    const long = 'x'.repeat(50);
    expect(split([`ok\n${long}\nok2\n`], 20).lines.map(([, l]) => l)).toEqual(['ok', 'ok2']);
    const r = split(['ok\nxxxxxxxxxx', 'xxxxxxxxxx', 'xxxxxxxxxx', 'xx\nafter\n', long], 20);
    expect(r).toEqual({
      lines: [
        [1, 'ok'],
        [3, 'after'],
      ],
      skipped: 2,
      total: 4,
    });
  });
});

describe('readLines', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('stops and reports it when the callback returns false', async () => {
    dir = mkdtempSync(join(tmpdir(), 'rambake-lines-'));
    const file = join(dir, 'f.txt');
    writeFileSync(file, 'a\nb\nc\nd\n');
    const seen: string[] = [];
    const result = await readLines(
      file,
      (line) => {
        seen.push(line);
        return line !== 'b';
      },
      { chunkBytes: 2 },
    );
    expect(seen).toEqual(['a', 'b']);
    expect(result.stopped).toBe(true);
    const all = await readLines(file, () => true);
    expect(all).toEqual({ lines: 4, skippedLongLines: 0, bytes: 8, stopped: false });
  });
});
