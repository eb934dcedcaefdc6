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

import { LinkRecords } from './du-links.js';
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

// '/' → '\0' makes plain string order equal to component-by-component order.
const sortKey = (group: string): string => group.replaceAll('/', '\u0000');

export class UsageMerger {
  readonly #grouped: boolean;
  /** Undefined when the caller passed none: nothing to look up, nothing to fill. */
  readonly #seen: InodeSet | undefined;
  /** Whether `seen` holds anything to look up (an empty set is skipped, as the usual case). */
  readonly #lookUp: boolean;
  readonly #local = new InodeSet();
  readonly #records = new LinkRecords();
  /** Grouped scans: each group's id (its index in #groupNames), and per walker its ids in ours. */
  readonly #groupIds = new Map<string, number>();
  readonly #groupNames: string[] = [];
  readonly #ids = new Map<unknown, number[]>();
  readonly #tallies = new Map<string, GroupTally>();
  #linkBytes = 0;
  #linkBytesBefore = 0;
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
    const { data } = batch;
    if (!this.#grouped) {
      for (let i = 0; i < batch.count * 4; i += 4) this.#addFlat(data[i]!, data[i + 1]!, data[i + 2]!);
      for (const big of batch.big) this.#addFlat(big.dev, big.ino, big.bytes);
      return;
    }
    let ids = this.#ids.get(source);
    if (!ids) {
      ids = [];
      this.#ids.set(source, ids);
    }
    for (const name of batch.names) ids.push(this.#groupId(name));
    for (let i = 0; i < batch.count * 4; i += 4)
      this.#addGrouped(data[i]!, data[i + 1]!, data[i + 2]!, ids[data[i + 3]!]!);
    for (const big of batch.big) this.#addGrouped(big.dev, big.ino, big.bytes, this.#groupId(big.group));
  }

  #groupId(name: string): number {
    let id = this.#groupIds.get(name);
    if (id === undefined) {
      id = this.#groupNames.push(name) - 1;
      this.#groupIds.set(name, id);
    }
    return id;
  }

  #addFlat(dev: number, ino: InodeNumber, bytes: number): void {
    if (!this.#local.add(dev, ino)) return;
    if (this.#lookUp && this.#seen!.has(dev, ino)) {
      this.#linkBytesBefore += bytes;
      this.#linksBefore++;
    } else this.#linkBytes += bytes;
  }

  #addGrouped(dev: number, ino: InodeNumber, bytes: number, group: number): void {
    const at = this.#records.add(dev, ino, bytes, group);
    if (at < 0 || !this.#seen) return;
    if (this.#lookUp && this.#seen.has(dev, ino)) this.#records.seenBefore(at);
    this.#local.add(dev, ino); // only to fill `seen` at the end
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
    // Per group id: its chain of ancestors and its sort key.
    const chains = this.#groupNames.map(chain);
    const keys = this.#groupNames.map(sortKey);
    let before = 0;
    this.#records.forEach((linkBytes, seenBefore, group, more, count) => {
      if (seenBefore) before++;
      else bytes += linkBytes;
      addRecord(linkBytes, seenBefore, group, more, count, chains, keys);
    });
    const linked = this.#grouped ? this.#records.size : this.#local.size;
    const inodes = this.#singleInodes + linked - before - this.#linksBefore;
    this.#seen?.absorb(this.#local);
    const keyed = [...groups].map(([group, usage]) => ({ key: sortKey(group), group, usage }));
    keyed.sort((a, b) => (a.key < b.key ? -1 : 1));
    const sorted = new Map(keyed.map(({ group, usage }) => [group, usage]));
    return { bytes, inodes, files: this.#files, dirs: this.#dirs, groups: sorted };
  }
}

/** Reused by addRecord, only ever written (see LinkRecords.forEach). */
const TOUCHED: GroupUsage[] = [];

/** One linked inode's bytes into its groups and their ancestors: `group` and the first `count` ids of `more`. */
function addRecord(
  bytes: number,
  before: boolean,
  group: number,
  more: number[],
  count: number,
  chains: GroupUsage[][],
  keys: string[],
): void {
  const first = chains[group]!;
  if (count === 0) {
    for (const g of first) {
      g.bytes += bytes;
      if (before) continue;
      g.uniqueBytes += bytes;
      g.attributedBytes += bytes;
    }
    return;
  }
  // A few groups of a few ancestors each: one reused array beats a Set or arrays per inode
  // (100,000 such inodes on 1M entries).
  let touched = 0;
  for (let k = -1; k < count; k++) {
    const list = k < 0 ? first : chains[more[k]!]!;
    for (let j = 0; j < list.length; j++) {
      const g = list[j]!;
      let i = 0;
      while (i < touched && TOUCHED[i] !== g) i++;
      if (i === touched) TOUCHED[touched++] = g;
    }
  }
  for (let i = 0; i < touched; i++) TOUCHED[i]!.bytes += bytes;
  if (before) return;
  // Unique to a group exactly when every folder holding the inode lies under it: the common ancestors.
  let common = first.length;
  for (let k = 0; k < count; k++) {
    const list = chains[more[k]!]!;
    let i = 0;
    while (i < common && i < list.length && list[i] === first[i]) i++;
    common = i;
  }
  for (let i = 0; i < common; i++) first[i]!.uniqueBytes += bytes;
  let winner = group;
  for (let k = 0; k < count; k++) if (keys[more[k]!]! < keys[winner]!) winner = more[k]!;
  for (const g of chains[winner]!) g.attributedBytes += bytes;
}
