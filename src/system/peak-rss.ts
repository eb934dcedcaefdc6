// This process's peak resident set, in KiB. getrusage's ru_maxrss is not it on Linux: a child
// starts with its parent's high-water mark (fork copies it, exec keeps it), so a watcher
// spawned by a 200 MiB parent reports 200 MiB. /proc/self/status VmHWM belongs to the
// process's own address space since exec; getrusage is the fallback off Linux.

import { readFileSync } from 'node:fs';

export function peakRssKiB(): number {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]);
  } catch {
    // no procfs
  }
  return process.resourceUsage().maxRSS;
}
