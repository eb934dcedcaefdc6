// `${SSTATE_MANIFESTS}` (default `${TMPDIR}/sstate-control`). sstate.bbclass appends one line
// per installed sstate task to `index-<SSTATE_MANMACH>`: STAMP, the manifest prefix and
// WORKDIR, blank-separated; lines are never removed, so a recipe may appear once per version.
//   '/b/tmp/stamps/core2-64-poky-linux/zlib/1.3.1 /b/tmp/sstate-control/manifest-core2-64-zlib /b/tmp/work/core2-64-poky-linux/zlib/1.3.1'
//   → { stamp: '…/stamps/…/zlib/1.3.1', manifestPrefix: '…/manifest-core2-64-zlib', workdir: '…/work/…/zlib/1.3.1' }

import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readText } from '../system/read-file.js';

export interface SstateIndexEntry {
  stamp: string;
  manifestPrefix: string;
  workdir: string;
}

export interface SstateIndex {
  entries: SstateIndexEntry[];
  /** Lines BitBake itself would reject ("Invalid line … in sstate manifest"). */
  skipped: string[];
}

export function parseSstateIndex(text: string): SstateIndex {
  const index: SstateIndex = { entries: [], skipped: [] };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const fields = line.trim().split(/\s+/);
    if (fields.length === 3) {
      const [stamp, manifestPrefix, workdir] = fields as [string, string, string];
      index.entries.push({ stamp, manifestPrefix, workdir });
    } else index.skipped.push(line);
  }
  return index;
}

/** STAMP → WORKDIR; a later line for the same STAMP wins. */
export function stampToWorkdir(entries: readonly SstateIndexEntry[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const e of entries) map.set(e.stamp, e.workdir);
  return map;
}

export interface ManifestName {
  arch: string;
  pn: string;
  /** The sstate task without `do_`: populate_sysroot, package_write_ipk, deploy, … */
  task: string;
}

/**
 * Splits `manifest-<arch>-<pn>.<task>`. Architectures may hold '-' ('core2-64',
 * 'armv7at2hf-neon'), and so may PNs, so pass the known architectures (the `index-<arch>`
 * names in the same folder): the longest that fits wins; otherwise the first '-' splits.
 *   'manifest-core2-64-zlib.populate_sysroot' with ['core2-64'] → { arch: 'core2-64', pn: 'zlib', task: 'populate_sysroot' }
 */
export function parseManifestName(
  name: string,
  knownArchs: readonly string[] = [],
): ManifestName | undefined {
  const m = /^manifest-(.+)\.([A-Za-z0-9_]+)$/.exec(name);
  if (!m) return undefined;
  const archPn = m[1]!;
  const task = m[2]!;
  const arch = [...knownArchs]
    .sort((a, b) => b.length - a.length)
    .find((a) => archPn.startsWith(`${a}-`) && archPn.length > a.length + 1);
  if (arch !== undefined) return { arch, pn: archPn.slice(arch.length + 1), task };
  const dash = archPn.indexOf('-');
  if (dash <= 0 || dash === archPn.length - 1) return undefined;
  return { arch: archPn.slice(0, dash), pn: archPn.slice(dash + 1), task };
}

export interface SstateControl {
  /** Architecture → index entries, from every `index-<arch>` file. */
  indexes: Map<string, SstateIndex>;
  manifests: (ManifestName & { file: string })[];
}

/** Reads the sstate-control folder; empty when it does not exist yet. */
export async function readSstateControl(dir: string): Promise<SstateControl> {
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  const indexes = new Map<string, SstateIndex>();
  for (const name of names) {
    if (!name.startsWith('index-') || name.endsWith('.lock')) continue;
    const text = (await readText(join(dir, name), 'index')) ?? '';
    indexes.set(name.slice('index-'.length), parseSstateIndex(text));
  }
  const archs = [...indexes.keys()];
  const manifests: SstateControl['manifests'] = [];
  for (const file of names) {
    const parsed = parseManifestName(file, archs);
    if (parsed) manifests.push({ file, ...parsed });
  }
  return { indexes, manifests };
}
