// Merges what the walkers found into one disk-usage answer. Single-link entries arrive as
// per-group tallies; multi-link entries arrive one by one and are counted here, once per
// (dev, ino), which is why walkers on several threads still add up to exactly `du -sB1`.
//
// Groups: every directory at most groupDepth components below the root is a group (key = its
// relative path, '' for the root); files belong to the group of their folder. Every group
// also contains its subgroups. Per group:
// - bytes:           what `du -sB1 <that folder>` would print alone (its hard links counted once);
// - uniqueBytes:     bytes of inodes found nowhere else in this scan, nor in the `seen` set;
// - attributedBytes: each inode counted in one place only, so these sum to the scan's total.
//   A hard-linked inode goes to the group whose path sorts first component by component,
//   which is where a depth-first walk in sorted name order would first see it (GNU du gives
//   it to whichever folder readdir happens to return first). Inodes in `seen` count nowhere.

import type { GroupTally, LinkBatch, WalkTotals } from './du-walk.js';
import { type InodeNumber, InodeSet } from './inode-set.js';

export interface GroupUsage {
  bytes: number;
  uniqueBytes: number;
  attributedBytes: number;
  /** Non-directory entries below (each hard link counted). */
  files: number;
  /** Directories below, the group's own folder included. */
  dirs: number;
}

interface LinkRecord {
  bytes: number;
  before: boolean;
  groups: string | string[];
}

// '/' → '\0' makes plain string order equal to component-by-component order.
const sortKey = (group: string): string => group.replaceAll('/', '\u0000');

export class UsageMerger {
  readonly #grouped: boolean;
  /** Undefined when the caller passed none: nothing to look up, nothing to fill. */
  readonly #seen: InodeSet | undefined;
  /** Whether `seen` holds anything to look up (an empty set is skipped, as the usual case). */
  readonly #lookUp: boolean;
  readonly #local = new InodeSet();
  readonly #records = new Map<number, Map<InodeNumber, LinkRecord>>();
  readonly #names = new Map<unknown, string[]>();
  readonly #tallies = new Map<string, GroupTally>();
  #linkBytes = 0;
  #linkBytesBefore = 0;
  /** Grouped scans: distinct multi-link inodes (`#local` is kept only to fill `seen`). */
  #recordCount = 0;
  /** Ungrouped scans: multi-link inodes found in `seen`. */
  #linksBefore = 0;
  #singleInodes = 0;
  #files = 0;
  #dirs = 0;

  constructor(groupDepth: number, seen?: InodeSet) {
    this.#grouped = groupDepth > 0;
    this.#seen = seen;
    this.#lookUp = (seen?.size ?? 0) > 0;
  }

  /** `source` identifies the walker, whose group ids are its own. */
  addLinks(source: unknown, batch: LinkBatch): void {
    let names = this.#names.get(source);
    if (!names) {
      names = [];
      this.#names.set(source, names);
    }
    names.push(...batch.names);
    const { data } = batch;
    for (let i = 0; i < batch.count * 4; i += 4) {
      this.#addLink(data[i]!, data[i + 1]!, data[i + 2]!, names[data[i + 3]!]!);
    }
    for (const big of batch.big) this.#addLink(big.dev, big.ino, big.bytes, big.group);
  }

  #addLink(dev: number, ino: InodeNumber, bytes: number, group: string): void {
    if (!this.#grouped) {
      if (!this.#local.add(dev, ino)) return;
      if (this.#lookUp && this.#seen!.has(dev, ino)) {
        this.#linkBytesBefore += bytes;
        this.#linksBefore++;
      } else this.#linkBytes += bytes;
      return;
    }
    let byIno = this.#records.get(dev);
    if (!byIno) {
      byIno = new Map();
      this.#records.set(dev, byIno);
    }
    const record = byIno.get(ino);
    if (!record) {
      byIno.set(ino, { bytes, before: this.#lookUp && this.#seen!.has(dev, ino), groups: group });
      this.#recordCount++;
      if (this.#seen) this.#local.add(dev, ino); // only to fill `seen` at the end
    } else if (typeof record.groups === 'string') {
      if (record.groups !== group) record.groups = [record.groups, group];
    } else if (!record.groups.includes(group)) record.groups.push(group);
  }

  addTotals(totals: WalkTotals): void {
    this.#singleInodes += totals.singleInodes;
    for (const [group, tally] of totals.groups) {
      const sum = this.#tallies.get(group) ?? { bytes: 0, files: 0, dirs: 0 };
      sum.bytes += tally.bytes;
      sum.files += tally.files;
      sum.dirs += tally.dirs;
      this.#tallies.set(group, sum);
      this.#files += tally.files;
      this.#dirs += tally.dirs;
    }
  }

  /** Totals, groups in sorted order; afterwards `seen` holds every multi-link inode of this scan. */
  finish(): { bytes: number; inodes: number; files: number; dirs: number; groups: Map<string, GroupUsage> } {
    const groups = new Map<string, GroupUsage>();
    const ancestorCache = new Map<string, GroupUsage[]>();
    const chain = (key: string): GroupUsage[] => {
      let list = ancestorCache.get(key);
      if (list) return list;
      let usage = groups.get(key);
      if (!usage) {
        usage = { bytes: 0, uniqueBytes: 0, attributedBytes: 0, files: 0, dirs: 0 };
        groups.set(key, usage);
      }
      const slash = key.lastIndexOf('/');
      list = key === '' ? [usage] : [...chain(slash < 0 ? '' : key.slice(0, slash)), usage];
      ancestorCache.set(key, list);
      return list;
    };
    let bytes = this.#linkBytes;
    for (const [key, tally] of this.#tallies) {
      bytes += tally.bytes;
      for (const g of chain(key)) {
        g.bytes += tally.bytes;
        g.uniqueBytes += tally.bytes;
        g.attributedBytes += tally.bytes;
        g.files += tally.files;
        g.dirs += tally.dirs;
      }
    }
    const root = chain('');
    for (const g of root) {
      g.bytes += this.#linkBytes + this.#linkBytesBefore;
      g.uniqueBytes += this.#linkBytes;
      g.attributedBytes += this.#linkBytes;
    }
    const keys = new Map<string, string>();
    const keyOf = (group: string): string => {
      let key = keys.get(group);
      if (key === undefined) {
        key = sortKey(group);
        keys.set(group, key);
      }
      return key;
    };
    let before = 0;
    for (const byIno of this.#records.values()) {
      for (const record of byIno.values()) {
        if (record.before) before++;
        else bytes += record.bytes;
        addRecord(record, chain, keyOf);
      }
    }
    const linked = this.#grouped ? this.#recordCount : this.#local.size;
    const inodes = this.#singleInodes + linked - before - this.#linksBefore;
    this.#seen?.absorb(this.#local);
    const sorted = new Map([...groups].sort(([a], [b]) => (sortKey(a) < sortKey(b) ? -1 : 1)));
    return { bytes, inodes, files: this.#files, dirs: this.#dirs, groups: sorted };
  }
}

function addRecord(
  record: LinkRecord,
  chain: (key: string) => GroupUsage[],
  keyOf: (group: string) => string,
): void {
  const { bytes } = record;
  if (typeof record.groups === 'string') {
    for (const g of chain(record.groups)) {
      g.bytes += bytes;
      if (record.before) continue;
      g.uniqueBytes += bytes;
      g.attributedBytes += bytes;
    }
    return;
  }
  const chains = record.groups.map(chain);
  const touched = new Set<GroupUsage>();
  for (const list of chains) for (const g of list) touched.add(g);
  for (const g of touched) g.bytes += bytes;
  if (record.before) return;
  // Unique to a group exactly when every folder holding the inode lies under it: the common ancestors.
  const first = chains[0]!;
  let common = first.length;
  for (const list of chains) {
    let i = 0;
    while (i < common && i < list.length && list[i] === first[i]) i++;
    common = i;
  }
  for (let i = 0; i < common; i++) first[i]!.uniqueBytes += bytes;
  let winner = 0;
  for (let i = 1; i < record.groups.length; i++) {
    if (keyOf(record.groups[i]!) < keyOf(record.groups[winner]!)) winner = i;
  }
  for (const g of chains[winner]!) g.attributedBytes += bytes;
}
