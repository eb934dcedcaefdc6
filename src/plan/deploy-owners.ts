// Which files of DEPLOY_DIR sstate will refuse to install over. sstate.bbclass (sstate_install)
// first removes what the task's own previous manifest lists, then fails on any file it would
// install that already exists, unless it lies under SSTATE_ALLOW_OVERLAP_FILES. So a deploy
// file no manifest in sstate-control lists is one the next build fails on ("trying to install
// files into a shared area when those files already exist") — licenses/ included: it is not in
// that list. Checking for "any manifest at all" is not enough: one failed build after the usual
// `rm -rf tmp` leaves manifests of its own beside the old deploy folder. Files OE-Core writes
// into DEPLOY_DIR outside sstate are never installed over, so they never clash: they are left
// out (NOT_SSTATE; on a real build of the tiny layer the only unlisted file was the first).

import type { Dirent } from 'node:fs';
import { opendir, readdir } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { readText } from '../system/read-file.js';

/**
 * SSTATE_ALLOW_OVERLAP_FILES of OE-Core's sstate.bbclass that lie in DEPLOY_DIR, relative to it
 * (`*` stands for ${MACHINE} in DEPLOY_DIR_IMAGE). Matched as sstate does: a path prefix.
 */
const ALLOWED_OVERLAP = [/^sources\//, /^images\/[^/]+\/(ovmf|grub-efi|systemd-boot|microcode)/];

/**
 * DEPLOY_DIR files written by something other than an sstate task (relative paths):
 * - the build's own SPDX document (lib/oe/spdx30_tasks.py, from an event handler);
 * - an image's license manifests and its IMAGE_LINK_NAME link (license_image.bbclass, in do_rootfs);
 * - package feed indexes (do_package_index: Packages, Release, repodata);
 * - cve-check's reports (CVE_CHECK_DIR, written by do_cve_check).
 */
const NOT_SSTATE = [
  /^spdx\/[^/]+\/bitbake\.spdx\.json$/,
  /^licenses\/.*\/(license|image_license|package)\.manifest$/,
  /^(deb|ipk)\/(.*\/)?(Packages(\.[a-z0-9]+)?|Release(\.gpg)?|InRelease)$/,
  /^rpm\/(.*\/)?repodata\//,
  /^cve\//,
];

/** Manifests of tasks that never install into DEPLOY_DIR, and are the big ones: not read. */
const NOT_DEPLOY = /\.(populate_sysroot|packagedata)$/;

export interface DeployFile {
  /** Relative to DEPLOY_DIR. */
  rel: string;
  /** A symbolic link (an image's license folder link is one). */
  link: boolean;
}

export interface DeployOwnership {
  /** Files (and links) under DEPLOY_DIR. */
  files: number;
  /** Those no manifest lists and no overlap rule allows. */
  unowned: number;
  /** One of them, relative to DEPLOY_DIR, for the message. */
  example?: string;
}

/** Pure: the verdict over DEPLOY_DIR's files (relative paths) and every path the manifests list. */
export function judgeDeploy(
  deployDir: string,
  files: readonly DeployFile[],
  listed: ReadonlySet<string>,
): DeployOwnership {
  const out: DeployOwnership = { files: files.length, unowned: 0 };
  for (const { rel, link } of files) {
    if (listed.has(join(deployDir, rel)) || ALLOWED_OVERLAP.some((re) => re.test(rel))) continue;
    if (NOT_SSTATE.some((re) => re.test(rel)) || (link && rel.startsWith('licenses/'))) continue;
    out.unowned++;
    out.example ??= rel;
  }
  return out;
}

/** DEPLOY_DIR's files against sstate-control's manifests; undefined when DEPLOY_DIR is absent or empty. */
export async function readDeployOwnership(
  deployDir: string,
  manifestsDir: string,
): Promise<DeployOwnership | undefined> {
  const files: DeployFile[] = [];
  await walkFiles(deployDir, '', files);
  if (files.length === 0) return undefined;
  const names = await readdir(manifestsDir).catch(() => [] as string[]);
  const listed = new Set<string>();
  for (const name of names) {
    // sstate's own search leaves the index files out (grep --exclude=index-*).
    if (!name.startsWith('manifest-') || NOT_DEPLOY.test(name)) continue;
    const text = await readText(join(manifestsDir, name), 'index').catch(() => undefined);
    // sstate writes paths joined from its dirs: a doubled slash is the same file.
    for (const line of text?.split('\n') ?? []) if (line.startsWith(deployDir)) listed.add(normalize(line));
  }
  return judgeDeploy(deployDir, files, listed);
}

/** Every file and link under `dir`, by dirent type (no stat per file). */
async function walkFiles(root: string, rel: string, out: DeployFile[]): Promise<void> {
  const handle = await opendir(rel ? join(root, rel) : root).catch(() => undefined);
  if (!handle) return;
  const dirs: string[] = [];
  for await (const e of handle as AsyncIterable<Dirent>) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) dirs.push(p);
    else out.push({ rel: p, link: e.isSymbolicLink() });
  }
  for (const d of dirs) await walkFiles(root, d, out);
}
