// When `rambake watch` attaches to a build already running, it reads the console log from its
// first line; those lines carry no time. The real times are in the build's buildstats folder:
// `${BUILDSTATS_BASE}/<BUILDNAME>/<PF>/<do_x>[_setscene]` has `Started:` and `Ended:` (epoch
// seconds, bitbake-formats.md §8). One small read per replayed task, only while catching up.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildNameToEpochMs, parseBuildstatsTask } from '../bitbake/buildstats.js';
import { readTextSync } from '../system/read-file.js';

export class PastTaskTimes {
  private readonly dir: string | undefined;

  /** `notBefore`: epoch ms; a buildstats folder named before it belongs to an earlier build. */
  constructor(buildstatsBase: string, notBefore: number) {
    this.dir = newestBuild(buildstatsBase, notBefore);
  }

  /** Epoch ms the task started (or ended), or undefined when buildstats does not say. */
  timeOf(pf: string, task: string, edge: 'start' | 'end'): number | undefined {
    if (this.dir === undefined) return undefined;
    let text: string | undefined;
    try {
      // Bounded and non-blocking: a FIFO or device among the entries is passed over.
      text = readTextSync(join(this.dir, pf, task), 'record');
    } catch {
      return undefined;
    }
    if (text === undefined) return undefined;
    const parsed = parseBuildstatsTask(text);
    const seconds = edge === 'start' ? parsed.started : parsed.ended;
    return seconds === undefined ? undefined : Math.round(seconds * 1000);
  }
}

// BUILDNAME is the UTC start time 'YYYYmmddHHMMSS': the newest folder is the running build.
function newestBuild(base: string, notBefore: number): string | undefined {
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => /^\d{14}$/.test(n));
  } catch {
    return undefined;
  }
  const newest = names.sort().at(-1);
  if (newest === undefined) return undefined;
  // The console log is named a moment before BUILDNAME (parsing can take a while).
  return buildNameToEpochMs(newest) >= notBefore ? join(base, newest) : undefined;
}
