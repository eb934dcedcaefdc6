// The file-system side of tasks: real bytes (no sparse files, so du sees them), sysroot
// hardlinks with BitBake's copy fallback, stamps, and rm_work exactly as rm_work.bbclass.

import fs from 'node:fs';
import path from 'node:path';

const CHUNK = Buffer.alloc(1 << 20, 0x5a);

// Bytes passed to write() so far: what /proc/<pid>/io counts as wchar for the task that did
// it (hardlinks write nothing; the EXDEV copy fallback writes the whole file).
let written = 0;
export const bytesWritten = (): number => written;

/** Writes `files` files totalling `bytes` under `dir` (a few per subfolder, like real trees). */
export function writeFolder(dir: string, files: number, bytes: number, stem = 'f'): string[] {
  const n = Math.max(1, files);
  const per = Math.floor(bytes / n);
  const written: string[] = [];
  for (let i = 0; i < n; i++) {
    const sub = path.join(dir, `d${Math.floor(i / 16)}`);
    fs.mkdirSync(sub, { recursive: true });
    const file = path.join(sub, `${stem}${i}`);
    writeBytes(file, i === n - 1 ? bytes - per * (n - 1) : per);
    written.push(file);
  }
  return written;
}

export function writeBytes(file: string, size: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  try {
    let left = Math.max(0, size);
    while (left > 0) {
      const n = Math.min(left, CHUNK.length);
      fs.writeSync(fd, CHUNK, 0, n);
      left -= n;
      written += n;
    }
  } catch (err) {
    // write(2) errors carry no path; the task's error message names the file, as Python's does
    if (err instanceof Error && (err as NodeJS.ErrnoException).path === undefined) {
      (err as NodeJS.ErrnoException).path = file;
    }
    throw err;
  } finally {
    fs.closeSync(fd);
  }
}

/** Lists regular files under dir, relative paths, sorted. */
export function listFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/**
 * Hardlinks every file of `from` into `to` (as staging.bbclass fills recipe sysroots from
 * sysroots-components); across file systems (EXDEV) it copies, as BitBake's fallback does.
 * Returns how many files had to be copied.
 */
export function linkTree(from: string, to: string): number {
  let copies = 0;
  for (const rel of listFiles(from)) {
    const dst = path.join(to, rel);
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    if (fs.existsSync(dst)) continue;
    try {
      fs.linkSync(path.join(from, rel), dst);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      fs.copyFileSync(path.join(from, rel), dst);
      written += fs.statSync(dst).size;
      copies++;
    }
  }
  return copies;
}

/** Stamps of one recipe, `<PV>.<do_x>[_setscene].<hash>[.<extra>]`, by file name. */
export function listStamps(stampBase: string): string[] {
  const dir = path.dirname(stampBase);
  if (!fs.existsSync(dir)) return [];
  const prefix = `${path.basename(stampBase)}.`;
  return fs.readdirSync(dir).filter((f) => f.startsWith(prefix));
}

/** Writes a task's stamp, removing its older normal and setscene stamps (not sigdata). */
export function writeStamp(stampBase: string, task: string, hash: string, setscene: boolean): void {
  const dir = path.dirname(stampBase);
  fs.mkdirSync(dir, { recursive: true });
  const pv = path.basename(stampBase);
  const old = new RegExp(`^${escapeRe(pv)}\\.${task}(_setscene)?\\.[0-9a-f]{64}$`);
  for (const f of listStamps(stampBase)) if (old.test(f)) fs.rmSync(path.join(dir, f), { force: true });
  fs.writeFileSync(`${stampBase}.${task}${setscene ? '_setscene' : ''}.${hash}`, '');
}

export function hasStamp(stampBase: string, task: string, hash: string, setscene: boolean): boolean {
  return fs.existsSync(`${stampBase}.${task}${setscene ? '_setscene' : ''}.${hash}`);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * rm_work's stamp pass (rm_work.bbclass): sigdata kept; image_complete/image_qa promoted to
 * setscene; package_write_*, rootfs, image*, build kept; do_package (normal and setscene)
 * deleted; setscene stamps kept; other sstate task stamps promoted; everything else deleted.
 */
export function rewriteStampsForRmWork(stampBase: string, sstateTasks: Set<string>): void {
  const dir = path.dirname(stampBase);
  const pv = path.basename(stampBase);
  for (const f of listStamps(stampBase)) {
    const task = f.slice(pv.length + 1).split('.')[0] ?? '';
    const full = path.join(dir, f);
    if (/\.(sigdata|sigbasedata)\./.test(f)) continue;
    if (task === 'do_image_complete' || task === 'do_image_qa') {
      fs.renameSync(full, path.join(dir, f.replace(task, `${task}_setscene`)));
    } else if (/^do_(package_write|rootfs|image|bootimg|write_qemuboot_conf|build)/.test(task)) {
      // kept as they are
    } else if (task === 'do_package' || task === 'do_package_setscene') {
      fs.rmSync(full, { force: true });
    } else if (task.endsWith('_setscene')) {
      // already a setscene stamp
    } else if (sstateTasks.has(task)) {
      fs.renameSync(full, path.join(dir, f.replace(task, `${task}_setscene`)));
    } else {
      fs.rmSync(full, { force: true });
    }
  }
}

/**
 * What rm_work's `for dir in *` loop deletes, in its order: the glob skips hidden names and
 * sorts the rest (dash: strcmp), and each one not in RM_WORK_EXCLUDE_ITEMS goes whole
 * (`rm -rf -- $dir`) before the next.
 */
export function rmWorkTargets(names: string[], excludeItems: string[]): string[] {
  return names
    .filter((n) => !n.startsWith('.') && !excludeItems.includes(n))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** rm_work's WORKDIR pass (rmWorkTargets); WORKDIR itself stays. */
export function cleanWorkdir(workdir: string, excludeItems: string[]): void {
  if (!fs.existsSync(workdir)) return;
  for (const e of rmWorkTargets(fs.readdirSync(workdir), excludeItems)) {
    fs.rmSync(path.join(workdir, e), { recursive: true, force: true });
  }
}
