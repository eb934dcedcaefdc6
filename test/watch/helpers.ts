// Fake BitBake builds under `rambake run`/`rambake watch`, for the watch tests.

import { appendFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI, copyExample, FAKE_BIN } from '../helpers/exec.js';

/** The built CLI (`npm test` builds it first). */
export const ENTRY = CLI;

export function buildEnv(scenario: string, timeScale = '0.005'): Record<string, string> {
  return {
    PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    NO_COLOR: '1',
    HOME: process.env.HOME ?? '/root',
    FAKE_BITBAKE_SCENARIO: scenario,
    FAKE_BITBAKE_TIME_SCALE: timeScale,
  };
}

/** A copy of examples/ with rm_work inherited (busybox stays in its RM_WORK_EXCLUDE). */
export function rmWorkBuild(extraConf = '', parent?: string): ReturnType<typeof copyExample> {
  const copy = copyExample(parent);
  appendFileSync(join(copy.topdir, 'conf', 'local.conf'), `INHERIT += "rm_work"\n${extraConf}`);
  return copy;
}

/** The built CLI in `cwd` with only `env`; a whole fake build may need a longer `timeout`. */
export function rambake(args: string[], cwd: string, env: Record<string, string>, timeout = 120_000) {
  return execa(process.execPath, [ENTRY, ...args], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout,
  });
}

/** `rambake run --json -- bitbake core-image-minimal`; returns exit code and the summary JSON. */
export async function runBuild(topdir: string, scenario: string, extra: string[] = []) {
  const r = await rambake(
    ['run', '--json', '--interval', '0.2', ...extra, '--', 'bitbake', 'core-image-minimal'],
    topdir,
    buildEnv(scenario),
  );
  const last = r.stdout.trim().split('\n').at(-1) ?? '';
  let summary: RunJson | undefined;
  try {
    summary = JSON.parse(last) as RunJson;
  } catch {
    throw new Error(`no summary JSON (exit ${r.exitCode}):\n${r.stdout}\n${r.stderr}`);
  }
  return { exitCode: r.exitCode ?? -1, summary, stderr: r.stderr };
}

export interface RunJson {
  schemaVersion: number;
  exitCode: number;
  timeline: string;
  peak: { bytes: number; inodes: number; at: number };
  heldGiBMin: number;
  lingering: { pn: string; pv: string; workdir: string; state: string; bytes: number; reason: string }[];
  resources: { wallMs: number; cpuUserMs: number; cpuSystemMs: number; maxRssKiB: number };
}

/** Every file below a folder (relative paths). */
export function listFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = join(prefix, e.name);
    if (e.isDirectory()) out.push(...listFiles(join(dir, e.name), rel));
    else out.push(rel);
  }
  return out;
}
