// The scanner's set of (device, inode) pairs against a plain Set of the same pairs: numbers on
// both sides of 2^32 (4- and 8-byte slots), up to 2^53, texts past it, enough to grow the tables.

import { describe, expect, it } from 'vitest';
import { type InodeNumber, InodeSet } from '../../src/system/inode-set.js';

describe('InodeSet', () => {
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
