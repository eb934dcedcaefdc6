// A set of (device, inode) pairs: how the disk-usage scanner counts a hard-linked file once.
// Inode numbers are kept as numbers (exact below 2^53); larger ones arrive as decimal strings.

export type InodeNumber = number | string;

export class InodeSet {
  readonly #byDev = new Map<number, Set<InodeNumber>>();
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
      inodes = new Set();
      this.#byDev.set(dev, inodes);
    }
    const size = inodes.size;
    inodes.add(ino); // one hash lookup instead of has() then add(): this runs per hard link
    if (inodes.size === size) return false;
    this.#size++;
    return true;
  }

  /** Adds every pair of `other`, which must not be used afterwards (its sets may be taken over). */
  absorb(other: InodeSet): void {
    for (const [dev, theirs] of other.#byDev) {
      const ours = this.#byDev.get(dev);
      if (!ours) {
        this.#byDev.set(dev, theirs);
        this.#size += theirs.size;
        continue;
      }
      for (const ino of theirs) {
        if (ours.has(ino)) continue;
        ours.add(ino);
        this.#size++;
      }
    }
  }

  *entries(): Generator<[number, InodeNumber]> {
    for (const [dev, inodes] of this.#byDev) for (const ino of inodes) yield [dev, ino];
  }
}
