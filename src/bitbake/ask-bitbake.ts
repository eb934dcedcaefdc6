// Asking BitBake itself for every value at once: one `bitbake -e` (about 4 s on a real build
// dir; 22 `bitbake-getvar` calls cost a minute). The answer is cached per build dir until one
// of the conf files read, the bitbake executable or the environment BitBake imports changes, so
// `status` then `doctor` pay once. The cache lives in the user's cache folder, never in TOPDIR.
// BitBake waits behind a running build, so then callers take only a cached answer.

import { createHash } from 'node:crypto';
import { promises as fsp, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../system/atomic-write.js';
import { waitForLockRelease } from '../system/bitbake-lock.js';
import { readText } from '../system/read-file.js';
import { whichSync } from '../system/which.js';
import { type BitbakeEnv, parseBitbakeEnv } from './bitbake-env.js';
import { inheritedEnvironment } from './conf/environment.js';

const CACHE_SCHEMA = 1;
/** The build's own conf files, whether or not they exist yet (apply may create one). */
const USER_CONF_NAMES = ['bblayers.conf', 'site.conf', 'auto.conf', 'toolcfg.conf', 'local.conf'];
export interface AskBitbakeOptions {
  topdir: string;
  env: NodeJS.ProcessEnv;
  /** The conf files rambake read: a change to any of them invalidates the cache. */
  files: readonly string[];
  /** Run BitBake as this user (a root rambake must not leave root-owned files in a user's build). */
  user?: { uid: number; gid: number };
  /** false: neither read nor write the cache. */
  cache?: boolean;
  /** false: answer from the cache only (a build holds the server: BitBake would wait behind it). */
  startBitbake?: boolean;
  timeoutMs?: number;
}

export type BitbakeAnswer =
  | { ok: true; env: BitbakeEnv; cached: boolean; seconds: number }
  | { ok: false; reason: string };

export async function askBitbake(asked: AskBitbakeOptions): Promise<BitbakeAnswer> {
  // BitBake runs in TOPDIR, as after `cd $BUILDDIR`: its PWD (which it imports) says so too, and
  // the cache does not depend on where rambake was started.
  const opts = { ...asked, env: { ...asked.env, PWD: asked.topdir } };
  const exe = whichSync('bitbake', opts.env);
  if (exe === undefined) return { ok: false, reason: 'bitbake is not on PATH' };
  const key = cacheKey(exe, opts);
  const file = cacheFile(opts.env, opts.topdir);
  if (opts.cache !== false) {
    const hit = await readCache(file, key);
    if (hit) return { ok: true, env: hit, cached: true, seconds: 0 };
  }
  if (opts.startBitbake === false) return { ok: false, reason: 'no cached answer for these conf files' };
  const started = Date.now();
  // Loaded here: a cached answer (the common case) should not pay for execa's import.
  const { execa } = await import('execa');
  const r = await execa(exe, ['-e'], {
    cwd: opts.topdir,
    env: opts.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 300_000,
    maxBuffer: 512 * 1024 * 1024,
    ...(opts.user ?? {}),
  });
  await waitForServerExit(opts.topdir);
  if (r.exitCode !== 0)
    return { ok: false, reason: `bitbake -e failed: ${firstError(r.stdout, r.stderr, r)}` };
  const env = parseBitbakeEnv(r.stdout);
  if (env.vars.size === 0) return { ok: false, reason: 'bitbake -e printed no variables' };
  if (opts.cache !== false) await writeCache(file, key, env).catch(() => undefined);
  return { ok: true, env, cached: false, seconds: (Date.now() - started) / 1000 };
}

/**
 * BitBake's server keeps bitbake.lock for a second or two after the command: wait it out (until
 * it is no longer held; a stale file left by an earlier server is not waited for).
 */
async function waitForServerExit(topdir: string, maxMs = 10_000): Promise<void> {
  await waitForLockRelease(topdir, maxMs);
}

function firstError(stdout: string, stderr: string, r: { exitCode?: number | undefined }): string {
  const lines = `${stderr}\n${stdout}`.split('\n').map((l) => l.trim());
  return (
    lines.find((l) => l.startsWith('ERROR:')) ?? lines.find((l) => l !== '') ?? `exit code ${r.exitCode}`
  );
}

function cacheFile(env: NodeJS.ProcessEnv, topdir: string): string {
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  const id = createHash('sha256').update(topdir).digest('hex').slice(0, 16);
  return join(base, 'rambake', 'bitbake-env', `${id}.json`);
}

function cacheKey(exe: string, opts: AskBitbakeOptions): string {
  const stamp = (f: string) => {
    const st = statSync(f, { throwIfNoEntry: false });
    return st ? [f, st.mtimeMs, st.size, st.ino] : [f];
  };
  // What BitBake takes from the environment (its pass-through lists), as the conf reader does.
  const env = inheritedEnvironment(opts.env).map((v) => [v.name, v.value]);
  const own = USER_CONF_NAMES.map((f) => join(opts.topdir, 'conf', f));
  const files = [...new Set([...own, ...opts.files])];
  return createHash('sha256')
    .update(
      JSON.stringify({
        exe: stamp(exe),
        topdir: opts.topdir,
        files: files.map(stamp),
        env,
        user: opts.user,
      }),
    )
    .digest('hex');
}

interface CacheFile {
  schema: number;
  key: string;
  vars: Array<[string, string]>;
  exported: string[];
}

async function readCache(file: string, key: string): Promise<BitbakeEnv | undefined> {
  try {
    const data = JSON.parse((await readText(file, 'index')) ?? '') as CacheFile;
    if (data.schema !== CACHE_SCHEMA || data.key !== key || !Array.isArray(data.vars)) return undefined;
    return { vars: new Map(data.vars), exported: new Set(data.exported) };
  } catch {
    return undefined;
  }
}

async function writeCache(file: string, key: string, env: BitbakeEnv): Promise<void> {
  await fsp.mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const data: CacheFile = { schema: CACHE_SCHEMA, key, vars: [...env.vars], exported: [...env.exported] };
  await writeFileAtomic(file, JSON.stringify(data), { mode: 0o600 });
}

/**
 * As root, BitBake runs as the build directory's owner, with that user's HOME: BitBake writes
 * into TOPDIR and TMPDIR (cache, hosttools, logs), and root-owned files there would break the
 * user's next build; `${HOME}` in a conf file means the builder's home.
 */
export function bitbakeUser(
  topdir: string,
  env: NodeJS.ProcessEnv,
): { env: NodeJS.ProcessEnv; user?: { uid: number; gid: number } } {
  const owner = statSync(topdir, { throwIfNoEntry: false });
  if (process.getuid?.() !== 0 || owner === undefined || owner.uid === 0) return { env };
  const entry = passwdEntry(owner.uid);
  return {
    env: { ...env, ...(entry ? { HOME: entry.home, USER: entry.name, LOGNAME: entry.name } : {}) },
    user: { uid: owner.uid, gid: owner.gid },
  };
}

// `alice:x:1000:1000:Alice:/home/alice:/bin/bash` → { name: 'alice', home: '/home/alice' }
function passwdEntry(uid: number): { name: string; home: string } | undefined {
  const text = (() => {
    try {
      return readFileSync('/etc/passwd', 'utf8');
    } catch {
      return '';
    }
  })();
  for (const line of text.split('\n')) {
    const f = line.split(':');
    if (f.length >= 7 && Number(f[2]) === uid) return { name: f[0]!, home: f[5]! };
  }
  return undefined;
}
