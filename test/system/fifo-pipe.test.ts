import { closeSync, readdirSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openFifoPipes, readFifo } from '../../src/system/fifo-pipe.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();
const scratch = () => {
  const dir = tempDir('rambake-fifo-');
  cleanups.push(dir.cleanup);
  return dir.path;
};

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
