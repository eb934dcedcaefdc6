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
    if (inodes.has(ino)) return false;
    inodes.add(ino);
    this.#size++;
    return true;
  }

  *entries(): Generator<[number, InodeNumber]> {
    for (const [dev, inodes] of this.#byDev) for (const ino of inodes) yield [dev, ino];
  }
}
