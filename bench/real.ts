// Benchmarks that need the real BitBake (../shared/real-bitbake): the sample build's local.conf
// over the real OE-Core layers, then
// - `rambake status --json`: cold (BitBake asked, `bitbake -e`), warm (the cached answer), and
//   the conf files alone (`--no-bitbake`), against `node -e 0` and one plain `bitbake -e`;
// - `rambake apply` to a verified effective TMPDIR: with BitBake's confirmation and without
//   (root only: apply mounts a real tmpfs, and revert takes it down again).
// Skipped with one line when the tree is absent.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitForLockRelease } from '../src/system/bitbake-lock.js';
import type { BenchRow } from './types.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SHARED = join(ROOT, '..', 'shared', 'real-bitbake');
const CLI = join(ROOT, 'dist', 'bin', 'rambake.js');

function seconds(argv: string[], env: NodeJS.ProcessEnv, cwd = ROOT): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed: ${r.stderr.toString().split('\n')[0]}`);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

export default async function bench(): Promise<BenchRow[]> {
  const tarball = existsSync(SHARED) ? readdirSync(SHARED).find((f) => f.endsWith('.tar.xz')) : undefined;
  if (tarball === undefined) {
    process.stderr.write('bench real: skipped, ../shared/real-bitbake not found\n');
    return [];
  }
  const work = mkdtempSync(join(tmpdir(), 'rambake-bench-real-'));
  try {
    execFileSync('tar', ['-xJf', join(SHARED, tarball), '-C', work]);
    const topdir = join(work, 'build');
    mkdirSync(join(topdir, 'conf'), { recursive: true });
    copyFileSync(join(ROOT, 'examples', 'build', 'conf', 'local.conf'), join(topdir, 'conf', 'local.conf'));
    writeFileSync(
      join(topdir, 'conf', 'bblayers.conf'),
      `BBPATH = "\${TOPDIR}"\nBBFILES ?= ""\nBBLAYERS = "${['meta', 'meta-poky', 'meta-yocto-bsp'].map((l) => join(work, l)).join(' ')}"\n`,
    );
    const env = {
      PATH: `${join(work, 'bitbake', 'bin')}:/usr/local/bin:/usr/bin:/bin`,
      HOME: process.env.HOME ?? '/root',
      LANG: 'en_US.UTF-8',
      LC_ALL: 'en_US.UTF-8',
      NO_COLOR: '1',
      XDG_CACHE_HOME: join(work, 'cache'),
    };
    const rows: BenchRow[] = [];
    const node = median([1, 2, 3, 4, 5].map(() => seconds([process.execPath, '-e', '0'], env)));
    const status = (...flags: string[]) =>
      seconds([process.execPath, CLI, '-B', topdir, ...flags, 'status', '--json'], env);
    // BitBake's first parse fills its own cache in TOPDIR: warm that up first, so "cold" means
    // rambake's cache only.
    seconds(['bitbake', '-e'], env, topdir);
    const plain = median([1, 2, 3].map(() => seconds(['bitbake', '-e'], env, topdir)));
    // The last one's server still holds bitbake.lock for a second: status would wait for it
    // (12-05: before it did, the cold row read 0.36 s, BitBake not asked).
    await waitForLockRelease(topdir, 10_000);
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < 3; i++) {
      rmSync(join(work, 'cache'), { recursive: true, force: true });
      cold.push(status());
      warm.push(status());
    }
    const offline = median([1, 2, 3].map(() => status('--no-bitbake')));
    rows.push(
      {
        bench: 'real',
        kind: 'measured',
        metric: 'status, BitBake cache cold (s)',
        value: median(cold),
        unit: 's',
        reference: plain,
        refName: 'bitbake -e',
        ratio: median(cold) / plain,
        goal: '≈ one bitbake -e',
      },
      {
        bench: 'real',
        kind: 'measured',
        metric: 'status, BitBake cache warm (s)',
        value: median(warm),
        unit: 's',
        reference: node,
        refName: 'node -e 0',
        ratio: median(warm) / node,
        goal: '< 0.5 s',
        ok: median(warm) < 0.5,
      },
      {
        bench: 'real',
        kind: 'measured',
        metric: 'status --no-bitbake (s)',
        value: offline,
        unit: 's',
        reference: node,
        refName: 'node -e 0',
        ratio: offline / node,
      },
    );
    if (process.getuid?.() === 0) {
      const ram = join(work, 'ram');
      for (const [label, flags] of [
        ['apply → TMPDIR verified by bitbake -e (s)', []],
        ['apply → TMPDIR verified by rambake only (s)', ['--no-bitbake']],
      ] as const) {
        const t = seconds(
          [process.execPath, CLI, '-B', topdir, ...flags, 'apply', '--path', ram, '--size', '1g'],
          env,
        );
        seconds([process.execPath, CLI, '-B', topdir, '--no-bitbake', 'revert'], env);
        rows.push({
          bench: 'real',
          metric: label,
          value: t,
          unit: 's',
          kind: 'measured',
          reference: plain,
          refName: 'bitbake -e',
          ratio: t / plain,
        });
      }
    } else process.stderr.write('bench real: apply rows skipped (not root: apply would not mount)\n');
    return rows;
  } finally {
    spawnSync('umount', [join(work, 'ram')], { stdio: 'ignore' });
    rmSync(work, { recursive: true, force: true });
  }
}
