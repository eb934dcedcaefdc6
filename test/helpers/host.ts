// The host that fact-written doctor tests run on: a 16 GiB, 8-CPU desktop with 8 GiB of swap, as
// a user rather than root. Each test spreads it into its own copy, since some change a field.

import type { HostFacts } from '../../src/system/host-facts.js';

const GiB = 2 ** 30;

export const desktopHost: HostFacts = {
  memTotal: 16 * GiB,
  memAvailable: 14 * GiB,
  swapTotal: 8 * GiB,
  swapFree: 8 * GiB,
  cpusUsable: 8,
  cpusOnline: 8,
  inotifyMaxUserWatches: 524288,
  isRoot: false,
};
