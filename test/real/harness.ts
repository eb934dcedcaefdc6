// The harness of the real BitBake suite: finds ../shared/real-bitbake beside the repository,
// unpacks the poky tree once per test run, makes build dirs, runs `bitbake -e` and real builds
// (as a non-root build user, since OE-Core's sanity check refuses root), and undoes all of it.
// It stands on its own code: nothing here asks rambake's src/ what BitBake would do.
//
// Cleanups: whatever a test makes is removed after that test; whatever a beforeAll makes, after
// its describe block (both only inside describeReal/describeRealBuild); the run folder itself,
// with anything left in it, at the end of the run (global-setup.ts).

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, afterEach, beforeEach, describe, inject } from 'vitest';
import { type RunResult, runRambake } from '../helpers/exec.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Where CI puts the real BitBake: `shared/` beside the repository clone. */
export const REAL_DIR = resolve(REPO, '..', 'shared', 'real-bitbake');
export const REAL_TARBALL = join(REAL_DIR, 'poky-d412d27475.tar.xz');
/** The project's tiny layer for real builds (copied into each build dir). */
export const TINY_LAYER = join(REPO, 'test', 'fixtures', 'real', 'meta-rambake-tiny');
/** The recipe that depends on every other recipe of the tiny layer. */
export const TINY_TARGET = 'tiny-target';
export const BUILD_USER = 'rambake-build';
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

// ---------------------------------------------------------------- skipping

type Verdict = { reason: string | undefined } | { error: Error };
const verdicts = new Map<string, Verdict>();

/** Runs `check` once per process; in CI a missing prerequisite is an error, elsewhere a skip line. */
function verdict(key: string, check: () => Verdict): string | undefined {
  let v = verdicts.get(key);
  if (!v) {
    v = check();
    verdicts.set(key, v);
  }
  if ('error' in v) throw v.error;
  return v.reason;
}

function missing(what: string, prerequisite: string): Verdict {
  if (process.env.CI) {
    return { error: new Error(`${what} cannot run in CI: ${prerequisite} (.ci/run installs it)`) };
  }
  return { reason: `${what} skipped: ${prerequisite}` };
}

/**
 * Undefined when the real suite can run; otherwise one line saying why not. Throws instead
 * when CI is set and the tarball is there but a prerequisite is missing: CI must run the suite.
 */
export function realSkipReason(): string | undefined {
  return verdict('config', () => {
    if (!existsSync(REAL_TARBALL)) {
      return {
        reason: `real BitBake suite skipped: ../shared/real-bitbake/${basename(REAL_TARBALL)} not found (a user's clone has none; CI always has it)`,
      };
    }
    const gap = missingTool(['tar', 'xz', 'python3']) ?? pythonTooOld() ?? localeMissing();
    return gap ? missing('real BitBake suite', gap) : { reason: undefined };
  });
}

/** Like realSkipReason, for real builds: they also need root (useradd, runuser, mount) and host tools. */
export function realBuildSkipReason(): string | undefined {
  const base = realSkipReason();
  if (base) return base;
  return verdict('build', () => {
    if (process.getuid?.() !== 0)
      return missing('real BitBake builds', 'not root (they need useradd, runuser and mount)');
    // pseudo and libpseudo stand in for OE-Core's pseudo-native; the rest is what OE-Core's
    // HOSTTOOLS and package_deb need that a slim Debian image may lack.
    const tools = ['runuser', 'useradd', 'mount', 'umount', 'chown', 'pseudo', 'dpkg-deb', 'dpkg-query'];
    tools.push(
      'chrpath',
      'cpio',
      'diffstat',
      'gawk',
      'gcc',
      'g++',
      'make',
      'git',
      'wget',
      'zstd',
      'rpcgen',
      'file',
    );
    const gap = missingTool(tools) ?? libpseudoMissing();
    return gap ? missing('real BitBake builds', gap) : { reason: undefined };
  });
}

function which(tool: string): string | undefined {
  return SYSTEM_PATH.split(':')
    .map((d) => join(d, tool))
    .find((p) => existsSync(p));
}

function missingTool(tools: string[]): string | undefined {
  const absent = tools.filter((t) => !which(t));
  return absent.length > 0 ? `${absent.join(', ')} not installed` : undefined;
}

function pythonTooOld(): string | undefined {
  const out = execFileSync('python3', ['-c', 'import sys; print(sys.version_info >= (3, 9))'], {
    env: { PATH: SYSTEM_PATH },
    encoding: 'utf8',
  });
  return out.trim() === 'True' ? undefined : 'python3 is older than 3.9 (BitBake 2.15 needs 3.9+)';
}

function localeMissing(): string | undefined {
  const out = execFileSync('locale', ['-a'], { env: { PATH: SYSTEM_PATH }, encoding: 'utf8' });
  const found = out.split('\n').some((l) => /^en_US\.utf-?8$/i.test(l.trim()));
  return found ? undefined : 'locale en_US.UTF-8 not generated (BitBake needs a UTF-8 locale)';
}

function libpseudoMissing(): string | undefined {
  try {
    const out = execFileSync('dpkg-query', ['-L', 'libpseudo'], {
      env: { PATH: SYSTEM_PATH },
      encoding: 'utf8',
    });
    if (out.split('\n').some((l) => l.endsWith('/libpseudo.so'))) return undefined;
  } catch {
    // not installed: dpkg-query exits 1
  }
  return 'Debian package libpseudo not installed';
}

const printed = new Set<string>();

function describeGated(reason: string | undefined, name: string, fn: () => void): void {
  if (reason) {
    // Once per test file (each runs in its own process), not once per test.
    if (!printed.has(reason)) console.log(reason);
    printed.add(reason);
    describe.skip(name, fn);
    return;
  }
  describe(name, () => {
    if (collecting === 0) registerCleanupHooks();
    collecting++;
    try {
      fn();
    } finally {
      collecting--;
    }
  });
}

/** A describe block of the real suite: skipped with one printed line when it cannot run. */
export function describeReal(name: string, fn: () => void): void {
  describeGated(realSkipReason(), name, fn);
}

/** A describe block of real builds (root, build user, tmpfs): skipped with one line otherwise. */
export function describeRealBuild(name: string, fn: () => void): void {
  describeGated(realBuildSkipReason(), name, fn);
}

// ---------------------------------------------------------------- cleanups

type Cleanup = () => void | Promise<void>;
const testCleanups: Cleanup[] = [];
const blockCleanups: Cleanup[] = [];
let inTest = false;
let collecting = 0;

/** Registers `fn` to run after the current test (or, from a beforeAll, after the describe block). */
export function realCleanup(fn: Cleanup): void {
  (inTest ? testCleanups : blockCleanups).push(fn);
}

function registerCleanupHooks(): void {
  beforeEach(() => {
    inTest = true;
  });
  afterEach(async () => {
    inTest = false;
    await runCleanups(testCleanups);
  });
  afterAll(() => runCleanups(blockCleanups));
}

/** Newest first (a build dir made on a tmpfs goes before the tmpfs); every one runs. */
async function runCleanups(list: Cleanup[]): Promise<void> {
  const errors: unknown[] = [];
  for (const c of list.splice(0).reverse()) {
    try {
      await c();
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0) throw errors[0];
}

// ---------------------------------------------------------------- the tree

let fallbackRunDir: string | undefined;

/** The run's shared folder from global-setup.ts; a per-process one if that setup did not run. */
function runDir(): string {
  let provided: string | undefined;
  try {
    provided = inject('realRunDir');
  } catch {
    // not inside a vitest worker (e.g. a benchmark importing the harness)
  }
  if (provided) return provided;
  if (!fallbackRunDir) {
    const dir = mkdtempSync(join(tmpdir(), 'rambake-real-'));
    chmodSync(dir, 0o755);
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    fallbackRunDir = dir;
  }
  return fallbackRunDir;
}

let tree: Promise<string> | undefined;

/**
 * The unpacked poky tree (bitbake/, meta/, meta-poky/, meta-yocto-bsp/), shared by every test
 * process of the run: the first to ask unpacks into a private folder and renames it into place
 * (atomic), a loser of that race drops its copy. Readable by every user.
 */
export function realTree(): Promise<string> {
  tree ??= unpackTree();
  return tree;
}

async function unpackTree(): Promise<string> {
  const skip = realSkipReason();
  if (skip) throw new Error(skip);
  const dir = join(runDir(), 'poky');
  if (existsSync(dir)) return dir;
  const tmp = mkdtempSync(join(runDir(), 'unpack-'));
  await execa('tar', ['-xJf', REAL_TARBALL, '-C', tmp, '--no-same-owner'], { env: { PATH: SYSTEM_PATH } });
  // The build user reads the layers and runs bitbake/bin; mkdtemp made tmp 0700.
  await execa('chmod', ['-R', 'u+rwX,go+rX,go-w', tmp], { env: { PATH: SYSTEM_PATH } });
  try {
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
  }
  return dir;
}

/** A scrubbed environment for BitBake: its bin first on PATH, a UTF-8 locale, HOME. */
export function bitbakeEnv(treeDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${join(treeDir, 'bitbake', 'bin')}:${SYSTEM_PATH}`,
    LANG: 'en_US.UTF-8',
    LC_ALL: 'en_US.UTF-8',
    HOME: process.env.HOME ?? '/root',
    ...extra,
  };
}

// ---------------------------------------------------------------- build dirs and bitbake -e

export interface ConfigBuildDirOptions {
  local?: string;
  auto?: string;
  site?: string;
  toolcfg?: string;
  /** Default: meta, meta-poky and meta-yocto-bsp of the tree. */
  layers?: string[];
  extraLayers?: string[];
  /** Text appended to conf/bblayers.conf. */
  bblayersExtra?: string;
}

/** bblayers.conf as a user's build dir has it: BBPATH, BBFILES, one layer a line. */
export function bblayersConf(layers: string[], extra = ''): string {
  const lines = layers.map((l) => `  ${l} \\\n`).join('');
  return `BBPATH = "\${TOPDIR}"\nBBFILES ?= ""\nBBLAYERS = " \\\n${lines}  "\n${extra}`;
}

/** A temp TOPDIR for config-only queries, conf files written verbatim; removed after the test. */
export async function makeConfigBuildDir(opts: ConfigBuildDirOptions = {}): Promise<string> {
  const treeDir = await realTree();
  const topdir = mkdtempSync(join(runDir(), 'conf-'));
  realCleanup(() => removeBuildDir(topdir));
  const layers = opts.layers ?? ['meta', 'meta-poky', 'meta-yocto-bsp'].map((l) => join(treeDir, l));
  const conf = join(topdir, 'conf');
  mkdirSync(conf);
  writeFileSync(
    join(conf, 'bblayers.conf'),
    bblayersConf([...layers, ...(opts.extraLayers ?? [])], opts.bblayersExtra),
  );
  writeFileSync(join(conf, 'local.conf'), opts.local ?? '');
  for (const name of ['auto', 'site', 'toolcfg'] as const) {
    const text = opts[name];
    if (text !== undefined) writeFileSync(join(conf, `${name}.conf`), text);
  }
  return topdir;
}

export type BitbakeEResult =
  | { ok: true; vars: Map<string, string>; exported: Set<string>; elapsedMs: number }
  | { ok: false; stderr: string; stdout: string; exitCode: number; elapsedMs: number };

/** The real `bitbake -e [recipe]` in `topdir`, parsed; returns once the server has let go of TOPDIR. */
export async function bitbakeE(
  topdir: string,
  opts: { env?: NodeJS.ProcessEnv; recipe?: string } = {},
): Promise<BitbakeEResult> {
  const env = opts.env ?? bitbakeEnv(await realTree());
  const started = Date.now();
  const r = await execa('bitbake', ['-e', ...(opts.recipe ? [opts.recipe] : [])], {
    cwd: topdir,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 300_000,
  });
  await waitForBitbakeServer(topdir);
  const elapsedMs = Date.now() - started;
  if (r.exitCode !== 0) {
    return { ok: false, stderr: r.stderr, stdout: r.stdout, exitCode: r.exitCode ?? -1, elapsedMs };
  }
  return { ok: true, ...parseBitbakeE(r.stdout), elapsedMs };
}

/**
 * The variables of `bitbake -e` output. BitBake (lib/bb/data.py emit_var) writes
 *   export PATH="/a:/b"      or      SRC_URI="file://x \
 *   file://y"
 * escaping only `"` → `\"`, `$` → `\$` and a newline → ` \` + newline (backslashes stay as they
 * are), so the escape backslash always sits right before `"`, `$` or ` \`+newline and undoing
 * those three is exact. Every physical line of a value but the last ends with ` \`; history
 * lines start with `#`. All variables are written before the first shell function
 * (`name() {`), whose bodies may hold lines that look like assignments, so parsing stops there.
 */
export function parseBitbakeE(text: string): { vars: Map<string, string>; exported: Set<string> } {
  const vars = new Map<string, string>();
  const exported = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (/^\S+\(\) \{$/.test(line)) break;
    const m = /^(export )?([^\s="#]+)="(.*)$/.exec(line);
    if (!m) continue;
    let raw = m[3] ?? '';
    while (raw.endsWith(' \\') && i + 1 < lines.length) {
      i++;
      raw += `\n${lines[i]}`;
    }
    if (!raw.endsWith('"')) continue; // cut-off output: not a value
    const value = raw
      .slice(0, -1)
      .split(' \\\n')
      .join('\n')
      .replace(/\\(["$])/g, '$1');
    const name = m[2] ?? '';
    vars.set(name, value);
    if (m[1]) exported.add(name);
  }
  return { vars, exported };
}

/**
 * Waits until no process holds TOPDIR/bitbake.lock. BitBake's server keeps it for a second or
 * two after the command exits, and removing TOPDIR under a live server leaves a stale lock
 * behind. BitBake takes it with flock, which /proc/locks lists by the file's inode:
 *   1: FLOCK  ADVISORY  WRITE 4242 00:2d:1234567 0 EOF
 */
export async function waitForBitbakeServer(topdir: string, timeoutMs = 60_000): Promise<void> {
  const lock = join(topdir, 'bitbake.lock');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let ino: number;
    try {
      ino = statSync(lock).ino;
    } catch {
      return; // no lock file: no server
    }
    if (!lockedInodes().has(ino)) return;
    if (Date.now() > deadline) throw new Error(`a BitBake server still holds ${lock} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

function lockedInodes(): Set<number> {
  const inodes = new Set<number>();
  for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
    const m = /\s[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (m?.[1]) inodes.add(Number(m[1]));
  }
  return inodes;
}

async function removeBuildDir(topdir: string): Promise<void> {
  await waitForBitbakeServer(topdir);
  rmSync(topdir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- real builds

export interface BuildUser {
  user: string;
  uid: number;
  gid: number;
  home: string;
}

let buildUser: Promise<BuildUser> | undefined;

/** The non-root user real builds run as (root only): created once, kept for later runs. */
export function ensureBuildUser(): Promise<BuildUser> {
  buildUser ??= createBuildUser();
  return buildUser;
}

function findUser(): BuildUser | undefined {
  for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
    // rambake-build:x:1001:1001::/home/rambake-build:/bin/sh
    const f = line.split(':');
    if (f[0] === BUILD_USER && f[5])
      return { user: BUILD_USER, uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
  }
  return undefined;
}

async function createBuildUser(): Promise<BuildUser> {
  // Test files run in parallel processes: a concurrent useradd may hold /etc/passwd's lock
  // (exit 10) or win the race (exit 9); read again and retry.
  let last = '';
  for (let attempt = 0; attempt < 20; attempt++) {
    const found = findUser();
    if (found) return found;
    const r = await execa('useradd', ['-m', BUILD_USER], { env: { PATH: SYSTEM_PATH }, reject: false });
    last = r.stderr;
    if (r.exitCode !== 0) await sleep(250);
  }
  const found = findUser();
  if (found) return found;
  throw new Error(`useradd -m ${BUILD_USER} failed: ${last}`);
}

/** Runs `argv` as the build user (`runuser -u`, which keeps the given env but sets HOME, USER). */
export async function runAsBuildUser(
  argv: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  await ensureBuildUser();
  const r = await execa('/usr/sbin/runuser', ['-u', BUILD_USER, '--', ...argv], {
    cwd: opts.cwd,
    env: opts.env ?? { PATH: SYSTEM_PATH, LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 600_000,
  });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function chownToBuildUser(path: string): Promise<void> {
  const u = await ensureBuildUser();
  await execa('chown', ['-R', `${u.uid}:${u.gid}`, path], { env: { PATH: SYSTEM_PATH } });
}

/**
 * A real tmpfs of `size` (e.g. "256m"), owned by the build user, named `rambake-test-…` so
 * BB_DISKMON and /proc/mounts tell it apart; unmounted after the test (root only).
 */
export async function mountTmpfs(size: string): Promise<string> {
  const u = await ensureBuildUser();
  const point = mkdtempSync(join(runDir(), 'mnt-'));
  realCleanup(async () => {
    await unmount(point);
    rmSync(point, { recursive: true, force: true });
  });
  const options = `size=${size},mode=0755,uid=${u.uid},gid=${u.gid}`;
  await execa('mount', ['-t', 'tmpfs', '-o', options, `rambake-test-${basename(point)}`, point], {
    env: { PATH: SYSTEM_PATH },
  });
  return point;
}

async function unmount(point: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const r = await execa('umount', [point], { env: { PATH: SYSTEM_PATH }, reject: false });
    if (r.exitCode === 0 || !isMounted(point)) return;
    await sleep(250); // busy: a server or a task of the build still exiting
  }
  await execa('umount', ['-l', point], { env: { PATH: SYSTEM_PATH } });
}

function isMounted(point: string): boolean {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === point);
}

export interface TinyBuildOptions {
  /** TMPDIR, writable by the build user (e.g. a folder on a tmpfs from mountTmpfs); default ${TOPDIR}/tmp. */
  tmpdir?: string;
  /** Text appended to the generated local.conf (it wins over the offline settings). */
  local?: string;
  /**
   * Extra files for the build's copy of the tiny layer: path inside the layer → text. The layer
   * parses .bb files at recipes-<group>/<name>/<file>.bb, e.g. `recipes-tiny/extra/extra_1.0.bb`.
   */
  recipes?: Record<string, string>;
  /** Size of the giant recipe's file in MiB (GIANT_MB; the recipe's default is 8). */
  giantMb?: number;
}

export interface TinyBuild {
  topdir: string;
  /** The build's own copy of the tiny layer. */
  layer: string;
  tmpdir: string;
  target: string;
  /** The environment to run bitbake with as the build user. */
  env: NodeJS.ProcessEnv;
}

/** The offline settings of ../shared/real-bitbake/README.md, as local.conf text. */
export function offlineLocalConf(opts: { tmpdir?: string; giantMb?: number } = {}): string {
  return [
    '# Offline build of the tiny layer (see ../shared/real-bitbake/README.md).',
    'MACHINE = "qemux86-64"',
    'BB_NO_NETWORK = "1"',
    '# Parse only os-release of OE-Core (one real recipe) and the tiny layer.',
    'BBMASK = "/meta/recipes-(?!core/os-release/)"',
    'PACKAGE_CLASSES = "package_deb"',
    'DPKG_BUILDCMD = "/usr/bin/dpkg-deb"',
    'ASSUME_PROVIDED += "dpkg-native rpm-native dwarfsrcfiles-native quilt-native patch-replacement-native"',
    'SKIP_FILEDEPS = "1"',
    'INHERIT += "rm_work"',
    'BB_SIGNATURE_HANDLER = "OEEquivHash"',
    'BB_HASHSERVE = "auto"',
    'DL_DIR = "${TOPDIR}/downloads"',
    'SSTATE_DIR = "${TOPDIR}/sstate-cache"',
    ...(opts.tmpdir ? [`TMPDIR = "${opts.tmpdir}"`] : []),
    ...(opts.giantMb !== undefined ? [`GIANT_MB = "${opts.giantMb}"`] : []),
    '',
  ].join('\n');
}

/**
 * A build dir for a real build of the tiny layer (layers: the tree's meta and a copy of the
 * tiny layer), owned by the build user, removed after the test once BitBake has let go.
 */
export async function makeTinyBuild(opts: TinyBuildOptions = {}): Promise<TinyBuild> {
  const treeDir = await realTree();
  const u = await ensureBuildUser();
  const topdir = mkdtempSync(join(runDir(), 'build-'));
  realCleanup(() => removeBuildDir(topdir));
  const layer = join(topdir, 'meta-rambake-tiny');
  cpSync(TINY_LAYER, layer, { recursive: true });
  for (const [rel, text] of Object.entries(opts.recipes ?? {})) {
    mkdirSync(dirname(join(layer, rel)), { recursive: true });
    writeFileSync(join(layer, rel), text);
  }
  mkdirSync(join(topdir, 'conf'));
  writeFileSync(join(topdir, 'conf', 'bblayers.conf'), bblayersConf([join(treeDir, 'meta'), layer]));
  writeFileSync(join(topdir, 'conf', 'local.conf'), offlineLocalConf(opts) + (opts.local ?? ''));
  chmodSync(topdir, 0o755);
  await chownToBuildUser(topdir);
  return {
    topdir,
    layer,
    tmpdir: opts.tmpdir ?? join(topdir, 'tmp'),
    target: TINY_TARGET,
    env: bitbakeEnv(treeDir, { HOME: u.home }),
  };
}

/** `bitbake <targets>` as the build user in the build dir; returns once the server is gone. */
export async function bitbakeBuild(
  build: TinyBuild,
  targets: string[] = [build.target],
  opts: { timeoutMs?: number } = {},
): Promise<{ exitCode: number; stdout: string; stderr: string; elapsedMs: number }> {
  const started = Date.now();
  const r = await runAsBuildUser(['bitbake', ...targets], { cwd: build.topdir, env: build.env, ...opts });
  await waitForBitbakeServer(build.topdir);
  return { ...r, elapsedMs: Date.now() - started };
}

/** The build's environment as runRambake takes it (defined values only). */
export function rambakeEnv(build: TinyBuild): Record<string, string> {
  return Object.fromEntries(
    Object.entries(build.env).filter((e): e is [string, string] => e[1] !== undefined),
  );
}

/**
 * `rambake apply --json` as root on a tiny build: a tmpfs of `size` at TOPDIR/ram. `rambake
 * revert` is registered to run after the test, before the build dir is removed.
 */
export async function applyRam(build: TinyBuild, size: string): Promise<{ ram: string; applied: RunResult }> {
  const env = rambakeEnv(build);
  const ram = join(build.topdir, 'ram');
  realCleanup(async () => {
    await runRambake(['-B', build.topdir, '--no-bitbake', 'revert'], { env, timeout: 150_000 });
  });
  const applied = await runRambake(['-B', build.topdir, '--json', 'apply', '--path', ram, '--size', size], {
    env,
    timeout: 180_000,
  });
  return { ram, applied };
}

/** `bitbake ARGS…` as the build user (BitBake's sanity check refuses root), for `rambake run --`. */
export function asBuildUser(...bitbakeArgs: string[]): string[] {
  return ['/usr/sbin/runuser', '-u', BUILD_USER, '--', 'bitbake', ...bitbakeArgs];
}
