// Spawns the built rambake binary the way a user does, with a scrubbed environment.

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'bin', 'rambake.js');
export const FAKE_BIN = join(ROOT, 'test', 'fake-bitbake', 'bin');

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runRambake(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeout?: number } = {},
): Promise<RunResult> {
  const result = await execa(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      NO_COLOR: '1',
      HOME: process.env.HOME ?? '/root',
      ...opts.env,
    },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeout ?? 60_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temp folder; `cleanup` removes it. */
export function tempDir(prefix = 'rambake-test-', parent = tmpdir()): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(parent, prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A temp copy of the sample build (examples/), whose TOPDIR is `<copy>/build`, in `parent`. */
export function copyExample(parent = tmpdir()): { root: string; topdir: string; cleanup: () => void } {
  const dir = tempDir('rambake-example-', parent);
  cpSync(join(ROOT, 'examples'), dir.path, { recursive: true, verbatimSymlinks: true });
  return { root: dir.path, topdir: join(dir.path, 'build'), cleanup: dir.cleanup };
}

/** A temp copy of a fixture folder under test/fixtures. */
export function copyFixture(name: string): { path: string; cleanup: () => void } {
  const dir = tempDir('rambake-fixture-');
  cpSync(join(ROOT, 'test', 'fixtures', name), dir.path, { recursive: true, verbatimSymlinks: true });
  return dir;
}
