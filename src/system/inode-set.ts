// A set of (device, inode) pairs: how the disk-usage scanner counts a hard-linked file once.
// Inode numbers are kept as numbers (exact below 2^53); larger ones arrive as decimal strings.
// A big TMPDIR has hundreds of thousands of hard-linked inodes: each device's numbers live in
// an open-addressing table of doubles (8 bytes a slot, at most half full) instead of a Set,
// which costs about three times that in V8 and grows in bigger steps.

export type InodeNumber = number | string;

const EMPTY = 0; // slots hold ino + 1, so that inode 0 is representable and 0 means free
const FIRST_CAPACITY = 1024;

/** Inode numbers of one device. */
class InodeTable {
  #slots = new Float64Array(FIRST_CAPACITY);
  #mask = FIRST_CAPACITY - 1;
  size = 0;
  /** Numbers past 2^53, as text (rare). */
  readonly big = new Set<string>();

  #slot(key: number): number {
    const low = key >>> 0;
    const high = (key / 4294967296) >>> 0;
    let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 15;
    let i = h & this.#mask;
    const slots = this.#slots;
    while (slots[i] !== EMPTY && slots[i] !== key) i = (i + 1) & this.#mask;
    return i;
  }

  has(ino: InodeNumber): boolean {
    if (typeof ino === 'string') return this.big.has(ino);
    return this.#slots[this.#slot(ino + 1)] !== EMPTY;
  }

  add(ino: InodeNumber): boolean {
    if (typeof ino === 'string') {
      const before = this.big.size;
      this.big.add(ino);
      return this.big.size !== before;
    }
    const key = ino + 1;
    const at = this.#slot(key);
    if (this.#slots[at] !== EMPTY) return false;
    this.#slots[at] = key;
    if (++this.size * 2 > this.#slots.length) this.#grow();
    return true;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Float64Array(old.length * 2);
    this.#mask = this.#slots.length - 1;
    for (const key of old) if (key !== EMPTY) this.#slots[this.#slot(key)] = key;
  }

  *numbers(): Generator<InodeNumber> {
    for (const key of this.#slots) if (key !== EMPTY) yield key - 1;
    yield* this.big;
  }
}

export class InodeSet {
  readonly #byDev = new Map<number, InodeTable>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  has(dev: number, ino: InodeNumber): boolean {
    return this.#byDev.get(dev)?.has(ino) ?? false;
  }

  /** Adds the pair; true when it was not there yet. */
  add(dev: number, ino: InodeNumber): boolean {
    let inodes = this.#byDev.get(dev);
    if (!inodes) {
      inodes = new InodeTable();
      this.#byDev.set(dev, inodes);
    }
    if (!inodes.add(ino)) return false;
    this.#size++;
    return true;
  }

  /** Adds every pair of `other`, which must not be used afterwards (its tables may be taken over). */
  absorb(other: InodeSet): void {
    for (const [dev, theirs] of other.#byDev) {
      const ours = this.#byDev.get(dev);
      if (!ours) {
        this.#byDev.set(dev, theirs);
        this.#size += theirs.size + theirs.big.size;
        continue;
      }
      for (const ino of theirs.numbers()) this.add(dev, ino);
    }
  }

  *entries(): Generator<[number, InodeNumber]> {
    for (const [dev, inodes] of this.#byDev) for (const ino of inodes.numbers()) yield [dev, ino];
  }
}
