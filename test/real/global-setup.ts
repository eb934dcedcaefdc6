// Once per vitest run: one temp folder that every test process shares (vitest forks a process per
// test file). The real poky tree is unpacked into it lazily, by the first test that asks
// (harness.ts realTree), so runs without real tests pay nothing; build dirs and tmpfs mount
// points of the real suite live in it too. At the end of the run: unmount whatever a crashed
// test left mounted in it, then remove it.

import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared temp folder for the real BitBake suite. */
    realRunDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'rambake-real-'));
  // Builds run as a non-root user, who must be able to reach the tree and build dirs inside.
  chmodSync(dir, 0o755);
  project.provide('realRunDir', dir);
  return () => {
    for (const mountpoint of mountsUnder(dir).reverse()) {
      try {
        execFileSync('umount', [mountpoint], { stdio: 'ignore' });
      } catch {
        execFileSync('umount', ['-l', mountpoint], { stdio: 'ignore' });
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

/** Mount points at or below `dir`, outermost first (/proc/self/mountinfo field 5, octal-escaped). */
function mountsUnder(dir: string): string[] {
  const points: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    // 36 35 0:52 / /tmp/rambake-real-x/mnt-1 rw,relatime shared:1 - tmpfs rambake-test-1 rw,size=1024k
    const field = line.split(' ')[4];
    if (!field) continue;
    const point = field.replace(/\\([0-7]{3})/g, (_, oct: string) =>
      String.fromCharCode(Number.parseInt(oct, 8)),
    );
    if (point === dir || point.startsWith(`${dir}/`)) points.push(point);
  }
  return points;
}
