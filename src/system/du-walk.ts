// The synchronous directory walker behind scanTree, run inside a worker thread or, sliced,
// on the main thread. It lstat()s every entry (symlinks are not followed) and tallies
// st_blocks × 512 per group; entries with more than one link are not counted here but
// handed out as (dev, ino, bytes, group) batches, because only the merger that sees every
// walker's batches can count each inode once. Directories are never deduplicated: GNU du
// only hashes non-directories when given one argument (directories cannot be hard-linked).

import { constants, lstatSync, readdirSync } from 'node:fs';

/** One directory whose entries are still to be read; its own inode is already counted. */
export interface WalkTask {
  path: string;
  /** Components below the scan root (the root is 0). */
  depth: number;
  /** Group key: the path relative to the root, cut to groupDepth components. */
  group: string;
}

export interface GroupTally {
  bytes: number;
  files: number;
  dirs: number;
}

export interface ScanError {
  path: string;
  code: string;
}

/** Multi-link entries: `data` holds dev, ino, bytes, group id per entry; `names` the group ids new since the last batch. */
export interface LinkBatch {
  data: Float64Array;
  count: number;
  names: string[];
  /** Entries whose inode number exceeds 2^53 (read again as bigint). */
  big: { dev: number; ino: string; bytes: number; group: string }[];
}

export interface WalkTotals {
  groups: [string, GroupTally][];
  /** Entries with one link (counted in groups), directories included. */
  singleInodes: number;
  errors: ScanError[];
}

const NO_THROW_ON_ENOENT = { throwIfNoEntry: false } as const;
const BIGINT_NO_THROW = { bigint: true, throwIfNoEntry: false } as const;
const BATCH = 4096;

/** dash's glob order (strcmp): what `for dir in *` in rm_work.bbclass walks, for ASCII names. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';

/**
 * What a walk found so far: per-group tallies, single-link inode count, errors, and the
 * multi-link entries batched for the merger. Shared by the readdir walker below and the
 * `find` output reader (du-find.ts), which feed one accumulator on the main thread.
 */
export class WalkTally {
  readonly #onLinks: (batch: LinkBatch) => void;
  readonly #tallies = new Map<string, GroupTally>();
  readonly #groupIds = new Map<string, number>();
  #newNames: string[] = [];
  #links = new Float64Array(BATCH * 4);
  #linkCount = 0;
  #big: LinkBatch['big'] = [];
  singleInodes = 0;
  readonly errors: ScanError[] = [];

  constructor(onLinks: (batch: LinkBatch) => void) {
    this.#onLinks = onLinks;
  }

  tally(group: string): GroupTally {
    let tally = this.#tallies.get(group);
    if (!tally) {
      tally = { bytes: 0, files: 0, dirs: 0 };
      this.#tallies.set(group, tally);
    }
    return tally;
  }

  /** A multi-link entry; `ino` is a decimal string when it exceeds 2^53. */
  addLink(dev: number, ino: number | string, bytes: number, group: string): void {
    if (typeof ino === 'string') {
      this.#big.push({ dev, ino, bytes, group });
      return;
    }
    let id = this.#groupIds.get(group);
    if (id === undefined) {
      id = this.#groupIds.size;
      this.#groupIds.set(group, id);
      this.#newNames.push(group);
    }
    const at = this.#linkCount * 4;
    this.#links[at] = dev;
    this.#links[at + 1] = ino;
    this.#links[at + 2] = bytes;
    this.#links[at + 3] = id;
    if (++this.#linkCount === BATCH) this.flushLinks();
  }

  /** Hands out the multi-link entries gathered so far. */
  flushLinks(): void {
    if (this.#linkCount === 0 && this.#big.length === 0 && this.#newNames.length === 0) return;
    const batch: LinkBatch = {
      data: this.#links,
      count: this.#linkCount,
      names: this.#newNames,
      big: this.#big,
    };
    this.#linkCount = 0;
    this.#newNames = [];
    this.#big = [];
    this.#onLinks(batch);
    // On this thread the merger has copied the batch; a worker transferred (detached) it.
    if (this.#links.buffer.byteLength === 0) this.#links = new Float64Array(BATCH * 4);
  }

  totals(): WalkTotals {
    return { groups: [...this.#tallies], singleInodes: this.singleInodes, errors: this.errors };
  }
}

export class TreeWalker {
  readonly stack: WalkTask[] = [];
  readonly acc: WalkTally;
  readonly #groupDepth: number;
  readonly #rootSorted: boolean;

  /**
   * `rootSorted`: the root's entries are walked one after the other in sorted order, as
   * do_rm_work deletes them (see ScanOptions.rmWorkOrder); otherwise in the order readdir gives.
   */
  constructor(groupDepth: number, onLinks: (batch: LinkBatch) => void, rootSorted = false) {
    this.#groupDepth = groupDepth;
    this.acc = new WalkTally(onLinks);
    this.#rootSorted = rootSorted;
  }

  /** Reads up to `maxDirs` directories; after each, offers work away when `wantsWork()` says so. */
  run(maxDirs: number, wantsWork?: () => boolean, giveWork?: (tasks: WalkTask[]) => void): boolean {
    for (let done = 0; done < maxDirs && this.stack.length > 0; done++) {
      this.#readDir(this.stack.pop()!);
      if (giveWork && this.stack.length > 1 && wantsWork?.()) {
        // The bottom of a depth-first stack holds the shallowest, biggest subtrees.
        giveWork(this.stack.splice(0, this.stack.length >> 1));
      }
    }
    return this.stack.length > 0;
  }

  /**
   * Reads the shallowest pending folders until at least `minTasks` are pending (or none, or
   * `maxDirs` read): many mid-sized subtrees to share out instead of a few big ones.
   */
  expand(minTasks: number, maxDirs: number): void {
    for (let done = 0; done < maxDirs && this.stack.length > 0 && this.stack.length < minTasks; done++) {
      let shallowest = 0;
      for (let i = 1; i < this.stack.length; i++) {
        if (this.stack[i]!.depth < this.stack[shallowest]!.depth) shallowest = i;
      }
      this.#readDir(this.stack.splice(shallowest, 1)[0]!);
    }
  }

  #readDir(task: WalkTask): void {
    const acc = this.acc;
    let names: string[];
    try {
      names = readdirSync(task.path);
    } catch (error) {
      // Unreadable or vanished: its own size is already counted, as du does.
      acc.errors.push({ path: task.path, code: errorCode(error) });
      return;
    }
    // Pushed in reverse, so that the depth-first stack pops the first name first.
    if (task.depth === 0 && this.#rootSorted) names.sort(byCodeUnit).reverse();
    const tally = acc.tally(task.group);
    const prefix = task.path.endsWith('/') ? task.path : `${task.path}/`;
    const depth = task.depth + 1;
    const ownGroup = depth <= this.#groupDepth;
    for (const name of names) {
      const full = prefix + name;
      let st: ReturnType<typeof lstatSync>;
      try {
        st = lstatSync(full, NO_THROW_ON_ENOENT);
      } catch (error) {
        acc.errors.push({ path: full, code: errorCode(error) });
        continue;
      }
      if (st === undefined) {
        acc.errors.push({ path: full, code: 'ENOENT' }); // deleted by the build since readdir
        continue;
      }
      const bytes = st.blocks * 512;
      if ((st.mode & constants.S_IFMT) === constants.S_IFDIR) {
        const group = ownGroup ? (task.group === '' ? name : `${task.group}/${name}`) : task.group;
        const dirTally = ownGroup ? acc.tally(group) : tally;
        dirTally.bytes += bytes;
        dirTally.dirs++;
        acc.singleInodes++;
        this.stack.push({ path: full, depth, group });
      } else {
        tally.files++;
        if (st.nlink > 1) this.#addLink(full, st.dev, st.ino, bytes, task.group);
        else {
          tally.bytes += bytes;
          acc.singleInodes++;
        }
      }
    }
  }

  #addLink(full: string, dev: number, ino: number, bytes: number, group: string): void {
    if (ino <= Number.MAX_SAFE_INTEGER) this.acc.addLink(dev, ino, bytes, group);
    else {
      const big = lstatSync(full, BIGINT_NO_THROW);
      if (big) this.acc.addLink(dev, String(big.ino), bytes, group);
    }
  }

  flushLinks(): void {
    this.acc.flushLinks();
  }

  totals(): WalkTotals {
    return this.acc.totals();
  }
}
