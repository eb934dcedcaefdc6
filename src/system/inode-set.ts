// A set of (device, inode) pairs: how the disk-usage scanner counts a hard-linked file once;
// and an index of them, which numbers each pair as it first comes (du-links.ts keeps what it
// knows of each linked inode in typed arrays at that number).
// Inode numbers are kept as numbers (exact below 2^53); larger ones arrive as decimal strings.
// A big TMPDIR has hundreds of thousands of hard-linked inodes: each device's numbers live in
// open-addressing tables of 4- or 8-byte slots (at most half full) instead of a Set, which
// costs several times that in V8 and grows in bigger steps.

export type InodeNumber = number | string;

const EMPTY = 0; // slots hold ino + 1, so that inode 0 is representable and 0 means free
const FIRST_CAPACITY = 1024;
/** The largest ino + 1 a 4-byte slot holds. */
const MAX_SMALL_KEY = 0xffffffff;

type Slots = Uint32Array | Float64Array;

/** Open addressing with linear probing, at most half full, over keys ≥ 1; with `indexed`, a number per key. */
class OpenTable {
  readonly #make: (length: number) => Slots;
  #slots: Slots;
  #values: Int32Array | undefined;
  #mask = FIRST_CAPACITY - 1;
  size = 0;

  constructor(make: (length: number) => Slots, indexed: boolean) {
    this.#make = make;
    this.#slots = make(FIRST_CAPACITY);
    if (indexed) this.#values = new Int32Array(FIRST_CAPACITY);
  }

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

  has(key: number): boolean {
    return this.#slots[this.#slot(key)] !== EMPTY;
  }

  add(key: number): boolean {
    return this.indexOf(key, 0) === -1;
  }

  /** The number stored with `key` (0 in a table without numbers); -1 when it was new, and `value` is now stored with it. */
  indexOf(key: number, value: number): number {
    const at = this.#slot(key);
    if (this.#slots[at] !== EMPTY) return this.#values?.[at] ?? 0;
    this.#slots[at] = key;
    if (this.#values) this.#values[at] = value;
    if (++this.size * 2 > this.#slots.length) this.#grow();
    return -1;
  }

  #grow(): void {
    const old = this.#slots;
    const oldValues = this.#values;
    this.#slots = this.#make(old.length * 2);
    if (oldValues) this.#values = new Int32Array(old.length * 2);
    this.#mask = this.#slots.length - 1;
    for (let i = 0; i < old.length; i++) {
      const key = old[i]!;
      if (key === EMPTY) continue;
      const at = this.#slot(key);
      this.#slots[at] = key;
      if (oldValues) this.#values![at] = oldValues[i]!;
    }
  }

  *keys(): Generator<number> {
    for (const key of this.#slots) if (key !== EMPTY) yield key;
  }
}

/**
 * Inode numbers of one device. Numbers below 2^32 − 1 (ext4, tmpfs: nearly all) take 4 bytes a
 * slot, the others 8 in a second table made when the first one comes: 199,900 linked inodes of
 * a 1M-entry tree peaked at 6 MiB in doubles while the table doubled, 3 MiB this way.
 */
class InodeTable {
  readonly #indexed: boolean;
  readonly #small: OpenTable;
  #large: OpenTable | undefined;
  /** Numbers past 2^53, as text (rare), with their index. */
  readonly big = new Map<string, number>();

  constructor(indexed: boolean) {
    this.#indexed = indexed;
    this.#small = new OpenTable((length) => new Uint32Array(length), indexed);
  }

  /** How many numbers (not texts) it holds. */
  get size(): number {
    return this.#small.size + (this.#large?.size ?? 0);
  }

  has(ino: InodeNumber): boolean {
    if (typeof ino === 'string') return this.big.has(ino);
    const key = ino + 1;
    return key <= MAX_SMALL_KEY ? this.#small.has(key) : (this.#large?.has(key) ?? false);
  }

  add(ino: InodeNumber): boolean {
    return this.indexOf(ino, 0) === -1;
  }

  /** As OpenTable.indexOf. */
  indexOf(ino: InodeNumber, value: number): number {
    if (typeof ino === 'string') {
      const known = this.big.get(ino);
      if (known !== undefined) return known;
      this.big.set(ino, value);
      return -1;
    }
    const key = ino + 1;
    if (key <= MAX_SMALL_KEY) return this.#small.indexOf(key, value);
    this.#large ??= new OpenTable((length) => new Float64Array(length), this.#indexed);
    return this.#large.indexOf(key, value);
  }

  *numbers(): Generator<InodeNumber> {
    for (const key of this.#small.keys()) yield key - 1;
    if (this.#large) for (const key of this.#large.keys()) yield key - 1;
    yield* this.big.keys();
  }
}

/** The device's table in `byDev`, made on first use. */
function tableOf(byDev: Map<number, InodeTable>, dev: number, indexed: boolean): InodeTable {
  let inodes = byDev.get(dev);
  if (!inodes) {
    inodes = new InodeTable(indexed);
    byDev.set(dev, inodes);
  }
  return inodes;
}

/** Numbers each (device, inode) pair 0, 1, 2, … in the order they first come. */
export class InodeIndex {
  readonly #byDev = new Map<number, InodeTable>();
  size = 0;

  /** The pair's number; a new pair gets `size` (which then grows by one). */
  indexOf(dev: number, ino: InodeNumber): number {
    const known = tableOf(this.#byDev, dev, true).indexOf(ino, this.size);
    return known === -1 ? this.size++ : known;
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
    if (!tableOf(this.#byDev, dev, false).add(ino)) return false;
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
