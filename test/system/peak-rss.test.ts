// The watcher's peak RSS must be its own: a child spawned by a big parent starts with the
// parent's getrusage high-water mark, which peakRssKiB() must not report.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/exec.js';

const linux = existsSync('/proc/self/status');
if (!linux) console.warn('skipped: no /proc/self/status (peakRssKiB falls back to getrusage)');

describe.skipIf(!linux)('peakRssKiB', () => {
  it("reports the process's own peak, not its parent's at fork", async () => {
    const module = join(ROOT, 'dist', 'system', 'peak-rss.js');
    const child = `import(${JSON.stringify(module)}).then((m) => console.log(JSON.stringify({ own: m.peakRssKiB(), rusage: process.resourceUsage().maxRSS })))`;
    const parent = `
      const big = Buffer.alloc(300 * 1024 * 1024, 1);
      const r = require('node:child_process').execFileSync(process.execPath, ['-e', ${JSON.stringify(child)}]);
      process.stdout.write(r.toString());
      if (big[0] !== 1) process.exit(3); // keeps the 300 MiB alive until the child is done`;
    const out = await execa(process.execPath, ['-e', parent]);
    const { own, rusage } = JSON.parse(out.stdout) as { own: number; rusage: number };
    expect(rusage).toBeGreaterThan(300 * 1024); // the quirk: the parent's 300 MiB
    expect(own).toBeLessThan(120 * 1024);
  });
});
