// What a grouped scan knows of each hard-linked inode: its bytes, whether an earlier scan saw it
// (`seen`), and every group it was found in. A big TMPDIR has hundreds of thousands of them
// (sysroots link every dependency's files): kept in typed arrays at the inode's number from
// InodeIndex, not as an object and a Map entry each. On a 1M-entry Yocto-shaped tree (199,900
// linked inodes) `space`'s scan peaked at 138 MiB that way, most of it V8 heap for those objects.

import { InodeIndex, type InodeNumber } from './inode-set.js';

const FIRST_CAPACITY = 1024;

const grown = <T extends Float64Array | Int32Array | Uint8Array>(array: T, length: number): T => {
  const bigger = new (array.constructor as new (length: number) => T)(length);
  bigger.set(array);
  return bigger;
};

export class LinkRecords {
  readonly #index = new InodeIndex();
  #bytes = new Float64Array(FIRST_CAPACITY);
  #before = new Uint8Array(FIRST_CAPACITY);
  /** The first group's id, at the inode's number. */
  #group = new Int32Array(FIRST_CAPACITY);
  /** Further groups: a list per inode in #listGroup/#listNext, its head + 1 here (0: none). */
  #moreGroups = new Int32Array(FIRST_CAPACITY);
  #listGroup = new Int32Array(FIRST_CAPACITY);
  #listNext = new Int32Array(FIRST_CAPACITY);
  #listSize = 0;

  /** Distinct inodes. */
  get size(): number {
    return this.#index.size;
  }

  /** Notes that (dev, ino) of `bytes` is in group `group`; its number when the inode is new, else -1. */
  add(dev: number, ino: InodeNumber, bytes: number, group: number): number {
    const size = this.#index.size;
    const at = this.#index.indexOf(dev, ino);
    if (at === size) {
      if (at === this.#bytes.length) this.#grow();
      this.#bytes[at] = bytes;
      this.#group[at] = group;
      return at;
    }
    if (this.#group[at] === group) return -1;
    let last = -1;
    for (let item = this.#moreGroups[at]! - 1; item >= 0; item = this.#listNext[item]! - 1) {
      if (this.#listGroup[item] === group) return -1;
      last = item;
    }
    const item = this.#listSize++;
    if (item === this.#listGroup.length) {
      this.#listGroup = grown(this.#listGroup, item * 2);
      this.#listNext = grown(this.#listNext, item * 2);
    }
    this.#listGroup[item] = group;
    this.#listNext[item] = 0;
    if (last < 0) this.#moreGroups[at] = item + 1;
    else this.#listNext[last] = item + 1;
    return -1;
  }

  /** Marks the inode numbered `at` as seen by an earlier scan: it counts in no total. */
  seenBefore(at: number): void {
    this.#before[at] = 1;
  }

  #grow(): void {
    const length = this.#bytes.length * 2;
    this.#bytes = grown(this.#bytes, length);
    this.#before = grown(this.#before, length);
    this.#group = grown(this.#group, length);
    this.#moreGroups = grown(this.#moreGroups, length);
  }

  /**
   * Calls `each` per inode with its bytes, whether an earlier scan saw it, and its groups: the
   * first group's id, and the first `count` items of `more` (reused between calls) the others,
   * in the order found. `more` is only ever written, never shortened: setting an array's length
   * to 0 drops its storage, and 16 MB went to refilling it on a 1M-entry tree.
   */
  forEach(
    each: (bytes: number, before: boolean, group: number, more: number[], count: number) => void,
  ): void {
    const more: number[] = [];
    for (let at = 0; at < this.#index.size; at++) {
      let count = 0;
      for (let item = this.#moreGroups[at]! - 1; item >= 0; item = this.#listNext[item]! - 1)
        more[count++] = this.#listGroup[item]!;
      each(this.#bytes[at]!, this.#before[at] === 1, this.#group[at]!, more, count);
    }
  }
}
