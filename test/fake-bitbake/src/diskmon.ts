// BB_DISKMON_DIRS as bitbake/lib/bb/monitordisk.py applies it (bitbake-formats.md §7, §12):
// `ACTION,DIR,MINSPACE,MININODES` entries; each heartbeat, free bytes (f_bavail × f_frsize)
// and free inodes of DIR's file system against the minimums. STOPTASKS: no new tasks;
// HALT: running tasks are stopped too; WARN: a warning only. Messages are BitBake's.

import fs from 'node:fs';
import path from 'node:path';

export type DiskAction = 'STOPTASKS' | 'HALT' | 'WARN';

interface Watch {
  action: DiskAction;
  dir: string;
  /** The /proc/mounts source of DIR's mount point (every tmpfs is `tmpfs` unless named). */
  device: string;
  minSpace?: number;
  minInodes?: number;
  lastFreeSpace: number;
  lastFreeInodes: number;
  /** STOPTASKS/HALT already fired for this entry. */
  fired: boolean;
}

export interface DiskCheck {
  /** `WARNING: …` / `ERROR: …` lines for the console. */
  lines: string[];
  stop: boolean;
  halt: boolean;
}

/** `1G` → 1073741824, `100K` → 102400, `512` → 512 bytes (not KB); anything else undefined. */
export function convertGMK(text: string): number | undefined {
  const m = /^([1-9][0-9]*)([gGmMkK]?)\s?$/.exec(text);
  if (!m) return undefined;
  const unit = { g: 1024 ** 3, m: 1024 ** 2, k: 1024, '': 1 }[(m[2] ?? '').toLowerCase()] ?? 1;
  return Number(m[1]) * unit;
}

export class DiskMonitor {
  private constructor(
    private readonly watches: Watch[],
    private readonly spaceInterval: number,
    private readonly inodeInterval: number,
  ) {}

  /**
   * Parses the setting; a bad entry disables the monitor with BitBake's error, as
   * monitordisk.printErr does (the build goes on). Creates missing folders, as BitBake does.
   */
  static create(dirs: string, warnInterval: string | undefined): { monitor?: DiskMonitor; lines: string[] } {
    const lines: string[] = [];
    const fail = (info: string) => ({
      lines: [...lines, `ERROR: ${info}\n       Disk space monitor will NOT be enabled`],
    });
    const byKey = new Map<string, Watch>();
    for (const entry of dirs.split(/\s+/).filter((e) => e !== '')) {
      const m = /^([^,]*),([^,]*),([^,]*),?(.*)$/.exec(entry);
      if (!m) return fail(`Invalid value in BB_DISKMON_DIRS: ${entry}`);
      let action = m[1] ?? '';
      if (action === 'ABORT') {
        lines.push(
          'WARNING: The BB_DISKMON_DIRS "ABORT" action has been renamed to "HALT", update configuration',
        );
        action = 'HALT';
      }
      if (!['HALT', 'STOPTASKS', 'WARN'].includes(action))
        return fail(`Unknown disk space monitor action: ${action}`);
      const minSpace = m[3] ? convertGMK(m[3]) : undefined;
      if (m[3] && minSpace === undefined) return fail(`Invalid disk space value in BB_DISKMON_DIRS: ${m[3]}`);
      const minInodes = m[4] ? convertGMK(m[4]) : undefined;
      if (m[4] && minInodes === undefined) return fail(`Invalid inode value in BB_DISKMON_DIRS: ${m[4]}`);
      if (minSpace === undefined && minInodes === undefined) {
        return fail(`No disk space or inode value in found BB_DISKMON_DIRS: ${entry}`);
      }
      const wanted = path.resolve(m[2] ?? '');
      fs.mkdirSync(wanted, { recursive: true });
      const dir = fs.realpathSync(wanted);
      byKey.set(`${dir}\0${action}`, {
        action: action as DiskAction,
        dir,
        device: mountedDevice(dir),
        ...(minSpace !== undefined ? { minSpace } : {}),
        ...(minInodes !== undefined ? { minInodes } : {}),
        lastFreeSpace: 0,
        lastFreeInodes: 0,
        fired: false,
      });
    }
    if (byKey.size === 0) return { lines };
    // BB_DISKMON_WARNINTERVAL `SPACE,INODES`: how much further free space must drop before warning again.
    let space = 50 * 1024 ** 2;
    let inodes = 5 * 1024;
    if (warnInterval) {
      const [s = '', i = ''] = warnInterval.split(/,\s*/);
      if (s) space = convertGMK(s) ?? Number.NaN;
      if (i) inodes = convertGMK(i) ?? Number.NaN;
      if (Number.isNaN(space) || Number.isNaN(inodes)) {
        return fail(`Invalid interval value in BB_DISKMON_WARNINTERVAL: ${warnInterval}`);
      }
    }
    return { monitor: new DiskMonitor([...byKey.values()], space, inodes), lines };
  }

  /** One heartbeat: statfs of each watched folder. */
  check(): DiskCheck {
    const out: DiskCheck = { lines: [], stop: false, halt: false };
    for (const w of this.watches) {
      const st = fs.statfsSync(w.dir);
      const freeSpace = st.bavail * st.bsize;
      if (w.minSpace !== undefined && freeSpace < w.minSpace) {
        if (w.lastFreeSpace === 0 || (w.lastFreeSpace - freeSpace > this.spaceInterval && !w.fired)) {
          const gb = (freeSpace / 1024 ** 3).toFixed(3);
          out.lines.push(`WARNING: The free space of ${w.dir} (${w.device}) is running low (${gb}GB left)`);
          w.lastFreeSpace = freeSpace;
        }
        this.act(w, out);
      }
      // Some file systems have dynamic inodes (f_files 0): no inode check for them.
      if (w.minInodes !== undefined && st.files > 0 && st.ffree < w.minInodes) {
        if (w.lastFreeInodes === 0 || (w.lastFreeInodes - st.ffree > this.inodeInterval && !w.fired)) {
          const k = (st.ffree / 1024).toFixed(3);
          out.lines.push(`WARNING: The free inode of ${w.dir} (${w.device}) is running low (${k}K left)`);
          w.lastFreeInodes = st.ffree;
        }
        this.act(w, out);
      }
    }
    return out;
  }

  private act(w: Watch, out: DiskCheck): void {
    if (w.fired || w.action === 'WARN') return;
    w.fired = true;
    if (w.action === 'STOPTASKS') {
      out.lines.push(
        'ERROR: No new tasks can be executed since the disk space monitor action is "STOPTASKS"!',
      );
      out.stop = true;
    } else {
      out.lines.push('ERROR: Immediately halt since the disk space monitor action is "HALT"!');
      out.halt = true;
    }
  }
}

/** getMountedDev: climb to DIR's mount point (where st_dev changes), then its /proc/mounts source. */
function mountedDevice(dir: string): string {
  let mountPoint = dir;
  const dev = fs.statSync(dir).dev;
  for (let p = path.dirname(dir); p !== mountPoint && fs.statSync(p).dev === dev; p = path.dirname(p)) {
    mountPoint = p;
  }
  try {
    for (const line of fs.readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [source, target] = line.split(' ');
      if (target === mountPoint && source) return source;
    }
  } catch {
    // no /proc: BitBake prints None
  }
  return 'None';
}
