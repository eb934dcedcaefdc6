// What to run, or to write, to mount the plan's tmpfs: the mount argv (run through execa, never
// a shell), the same as a copy-pasteable `sudo` line, an /etc/fstab line and a systemd .mount
// unit. Pure: templates come in as text (readTemplate does the I/O).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UnsafeMountError } from '../errors.js';
import { renderShellCommand } from '../text/shell.js';

export interface MountSpec {
  /** The tmpfs source name, `rambake-<id>`: BB_DISKMON and mountinfo tell tmpfs mounts apart by it. */
  source: string;
  path: string;
  options: readonly string[];
}

/**
 * The tmpfs source name of one build: `rambake-` and 16 hex digits of sha1(TOPDIR). Only apply
 * mounts with it, and revert unmounts nothing else, whatever state.json (a file in the
 * user-writable build directory) says. 16 digits (64 bits), not 8: with 8, a user could try
 * names for a build directory of their own until one shares another build's name (2^32 sha1s,
 * minutes on a laptop) and point their state.json at that build's tmpfs; 2^64 is out of reach.
 */
export function tmpfsSourceName(topdir: string): string {
  return `rambake-${sha1Hex(topdir).slice(0, 16)}`;
}

/**
 * The name rambake gave the same tmpfs before the id was lengthened: the first 8 of the same
 * 16 digits. revert still unmounts a tmpfs mounted under it, but only at this build's own
 * default path (revert-trust.ts), since another build directory can be made to share it.
 */
export function legacyTmpfsSourceName(topdir: string): string {
  return `rambake-${sha1Hex(topdir).slice(0, 8)}`;
}

const sha1Hex = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * The folder of the tmpfs when the plan has no --path (scope tmpdir): `${TOPDIR}/tmp-ram`,
 * as sizing.ts's mountPath chooses it.
 */
export const DEFAULT_MOUNT_FOLDER = 'tmp-ram';

/** Refuses what must never be mounted: relative paths, noexec (BitBake runs native tools from TMPDIR). */
export function checkMountSpec(spec: MountSpec): void {
  if (!isAbsolute(spec.path)) throw new UnsafeMountError(`mount point ${spec.path} is not an absolute path`);
  if (/[\r\n\0]/.test(spec.path))
    throw new UnsafeMountError(`mount point ${JSON.stringify(spec.path)} holds a line break`);
  if (spec.options.includes('noexec')) {
    throw new UnsafeMountError(`tmpfs options ask for noexec (${spec.options.join(',')})`, {
      hint: 'BitBake runs native tools from TMPDIR: a noexec TMPDIR breaks the build',
    });
  }
  for (const option of spec.options) {
    if (/[,\s]/.test(option) || option === '') throw new UnsafeMountError(`bad tmpfs option "${option}"`);
  }
  if (!/^[A-Za-z0-9._-]+$/.test(spec.source))
    throw new UnsafeMountError(`bad tmpfs source name "${spec.source}"`);
}

export function mountArgv(spec: MountSpec): string[] {
  checkMountSpec(spec);
  return ['mount', '-t', 'tmpfs', '-o', spec.options.join(','), spec.source, spec.path];
}

export function umountArgv(path: string): string[] {
  return ['umount', path];
}

/**
 * `bitbake TARGET` for a person to paste: a recipe name comes from data (a work folder, a
 * timeline), so it is quoted, and one starting with `-` goes after `--` (argparse's end of
 * options) so that it is not read as an option. Example: '$(id)' → `bitbake '$(id)'`.
 */
export function renderBitbakeCommand(targets: string | readonly string[]): string {
  return renderShellCommand(['bitbake', ...bitbakeTargets(targets)]);
}

/** `rambake run --steps=a,b -- bitbake A B`, quoted the same way (`--steps=` keeps a leading `-` a value). */
export function renderRunStepsCommand(steps: readonly string[], targets: string | readonly string[]): string {
  return renderShellCommand([
    'rambake',
    'run',
    `--steps=${steps.join(',')}`,
    '--',
    'bitbake',
    ...bitbakeTargets(targets),
  ]);
}

/** Every target, after `--` when one starts with `-` (so bitbake reads none as an option). */
function bitbakeTargets(targets: string | readonly string[]): string[] {
  const list = typeof targets === 'string' ? [targets] : [...targets];
  return list.some((t) => t.startsWith('-')) ? ['--', ...list] : list;
}

/** The commands a non-root user runs: make the folder if missing, then mount. */
export function sudoCommands(spec: MountSpec, folderExists: boolean): string[] {
  const lines: string[] = [];
  if (!folderExists) lines.push(renderShellCommand(['sudo', 'mkdir', '-p', spec.path]));
  lines.push(renderShellCommand(['sudo', ...mountArgv(spec)]));
  return lines;
}

/** fstab(5) fields escape blanks and backslashes as octal: `/mnt/my disk` → `/mnt/my\040disk`. */
export function escapeFstabField(field: string): string {
  return field.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}

export function renderFstabLine(template: string, spec: MountSpec): string {
  checkMountSpec(spec);
  return fillTemplate(template.trimEnd(), {
    what: escapeFstabField(spec.source),
    where: escapeFstabField(spec.path),
    options: spec.options.join(','),
  });
}

/**
 * systemd's unit name for a mount point (`systemd-escape --path --suffix=mount`):
 * `/mnt/rambake/tmp` → `mnt-rambake-tmp.mount`; `/` separates, everything outside
 * [A-Za-z0-9:_.] (and a leading `.`) becomes `\xNN` per UTF-8 byte.
 */
export function mountUnitName(path: string): string {
  const normal = posix.normalize(path).replace(/^\/+|\/+$/g, '');
  if (normal === '') return '-.mount';
  const parts: string[] = [];
  for (const [i, ch] of [...normal].entries()) {
    if (ch === '/') parts.push('-');
    else if (/^[A-Za-z0-9:_]$/.test(ch) || (ch === '.' && i > 0)) parts.push(ch);
    else for (const byte of Buffer.from(ch, 'utf8')) parts.push(`\\x${byte.toString(16).padStart(2, '0')}`);
  }
  return `${parts.join('')}.mount`;
}

/** systemd expands `%` specifiers in What=, Where=, Options= and Description=: double them. */
const escapeSpecifiers = (value: string): string => value.replaceAll('%', '%%');

/**
 * The .mount unit: the shipped template with its placeholders filled. Values go in as they
 * are (systemd does not unquote Options=, and every tmpfs option list holds `=`), with `%`
 * doubled; checkMountSpec has refused line breaks, so no value can start a new key.
 */
export function renderMountUnit(template: string, spec: MountSpec): string {
  checkMountSpec(spec);
  return fillTemplate(template, {
    what: escapeSpecifiers(spec.source),
    where: escapeSpecifiers(posix.normalize(spec.path)),
    options: escapeSpecifiers(spec.options.join(',')),
  });
}

/** `{name}` → value; a placeholder left unfilled is a template bug. */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{([a-z]+)\}/g, (all, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`template placeholder ${all} has no value`);
    return value;
  });
}

/** templates/ beside src/ (or dist/) of the installed package. */
export function readTemplate(name: 'fstab.line' | 'rambake-tmpfs.mount'): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return readFileSync(join(here, '..', '..', 'templates', name), 'utf8');
}
