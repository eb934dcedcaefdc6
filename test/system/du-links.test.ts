import { describe, expect, it } from 'vitest';
import { LinkRecords } from '../../src/system/du-links.js';
import { InodeIndex, type InodeNumber } from '../../src/system/inode-set.js';

describe('InodeIndex', () => {
  it('numbers each pair once, in the order they come, through growth and on both sides of 2^32', () => {
    const index = new InodeIndex();
    const oracle = new Map<string, number>();
    const edges: InodeNumber[] = [0, 2 ** 32 - 2, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1, '9007199254740993'];
    let x = 99;
    const inos: InodeNumber[] = [...edges];
    for (let i = 0; i < 30_000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      inos.push(i % 7 === 0 ? x * 8192 + (i % 8192) : x % 40_000);
    }
    for (const [i, ino] of [...inos, ...edges].entries()) {
      const dev = i % 4 === 0 ? 2049 : 64768;
      const key = `${dev}:${ino}`;
      const expected = oracle.get(key) ?? oracle.size;
      oracle.set(key, expected);
      expect(index.indexOf(dev, ino), key).toBe(expected);
    }
    expect(index.size).toBe(oracle.size);
  });
});

describe('LinkRecords', () => {
  it("keeps each inode's bytes, earlier-scan mark and distinct groups in the order found", () => {
    const records = new LinkRecords();
    // Enough inodes to grow every array, some of them in several groups.
    for (let i = 0; i < 5000; i++) expect(records.add(2049, i * 3, 4096 * (i + 1), i % 10)).toBe(i);
    for (let i = 0; i < 5000; i += 2) {
      for (const group of [i % 10, 7, 3, 7, 11, 3]) expect(records.add(2049, i * 3, 4096, group)).toBe(-1);
    }
    records.seenBefore(4);
    expect(records.size).toBe(5000);
    const seen: [number, boolean, number, number[]][] = [];
    records.forEach((bytes, before, group, more, count) => {
      seen.push([bytes, before, group, more.slice(0, count)]);
    });
    expect(seen).toHaveLength(5000);
    expect(seen[0]).toEqual([4096, false, 0, [7, 3, 11]]);
    expect(seen[1]).toEqual([8192, false, 1, []]);
    expect(seen[4]).toEqual([20480, true, 4, [7, 3, 11]]);
    expect(seen[7]).toEqual([32768, false, 7, []]);
    expect(seen[4998]).toEqual([4096 * 4999, false, 8, [7, 3, 11]]);
  });
});
