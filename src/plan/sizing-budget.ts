// The arithmetic of the sizing model, apart from its explanations: how much RAM (and swap) a
// tmpfs may take once compilers have their share, and which of the cheaper fixes makes the
// build fit: fewer parallel jobs, recipes too big for RAM on disk, swap under the tmpfs.

export const GiB = 2 ** 30;
export const MiB = 2 ** 20;

/** Swap a tmpfs may lean on: most of the free swap, the rest left for everything else. */
export const SWAP_SHARE = 0.9;

export interface BudgetInput {
  /** RAM free for the build: MemAvailable (or its what-if under --ram). */
  available: number;
  /** Kept for BitBake's server, the page cache and the desktop. */
  headroom: number;
  swapFree: number;
  perJobBytes: number;
  /** Compile jobs with today's settings, and the fewest the model will lower them to. */
  jobs: number;
  minJobs: number;
  /** Bytes the build needs on the tmpfs, with and without the giants placed on disk. */
  need: number;
  needWithoutGiants: number;
  hasGiants: boolean;
  /** --size: the user's tmpfs size, checked rather than chosen. */
  fixedSize?: number;
}

export interface BudgetChoice {
  fits: boolean;
  size: number;
  jobs: number;
  giantsOnDisk: boolean;
  swapHelps: boolean;
  /** RAM (plus swap when it helps) the tmpfs may take at `jobs`. */
  room: number;
}

/** Bytes → whole GiB upward (a tmpfs size= is only a cap: unused space costs nothing). */
export function roundUpGiB(bytes: number): number {
  return Math.max(GiB, Math.ceil(bytes / GiB) * GiB);
}

export function roundDownGiB(bytes: number): number {
  return Math.max(GiB, Math.floor(bytes / GiB) * GiB);
}

/** What a tmpfs may take with `jobs` compile jobs running, with or without swap. */
export function roomFor(b: BudgetInput, jobs: number, swap: boolean): number {
  return Math.max(0, b.available - b.headroom - jobs * b.perJobBytes + (swap ? b.swapFree * SWAP_SHARE : 0));
}

function attempt(b: BudgetInput, giants: boolean, swap: boolean): BudgetChoice | undefined {
  const need = giants ? b.needWithoutGiants : b.need;
  if (b.fixedSize !== undefined && need > b.fixedSize) return undefined;
  const size = b.fixedSize ?? roundUpGiB(need);
  const choice = (jobs: number): BudgetChoice => ({
    fits: true,
    size,
    jobs,
    giantsOnDisk: giants,
    swapHelps: swap && size > roomFor(b, jobs, false),
    room: roomFor(b, jobs, swap),
  });
  if (size <= roomFor(b, b.jobs, swap)) return choice(b.jobs);
  const free = b.available - b.headroom + (swap ? b.swapFree * SWAP_SHARE : 0) - size;
  const jobsFit = Math.min(b.jobs, Math.floor(free / b.perJobBytes));
  return jobsFit >= b.minJobs ? choice(jobsFit) : undefined;
}

/**
 * The first that fits, cheapest first: as is (or with fewer jobs); giants on disk; swap under
 * the tmpfs; both. Failing all, the largest tmpfs the machine can give, for a build in steps.
 */
export function chooseBudget(b: BudgetInput): BudgetChoice {
  const combos: [boolean, boolean][] = [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ];
  for (const [giants, swap] of combos) {
    if (giants && !b.hasGiants) continue;
    if (swap && b.swapFree <= 0) continue;
    const found = attempt(b, giants, swap);
    if (found) return found;
  }
  const swap = b.swapFree > 0;
  // A size the user fixed that RAM holds beside every job: fewer jobs would not make the build
  // fit it (it is the size, not the RAM, that is short), only slow the build (or its steps).
  const keepJobs = b.fixedSize !== undefined && b.fixedSize <= roomFor(b, b.jobs, swap);
  const jobs = keepJobs ? b.jobs : b.minJobs;
  const room = roomFor(b, jobs, swap);
  return {
    fits: false,
    size: b.fixedSize ?? roundDownGiB(room),
    jobs,
    giantsOnDisk: b.hasGiants,
    swapHelps: swap,
    room,
  };
}

/** size= in the largest whole binary unit: 21474836480 → "20g", else KiB → "…k". */
export function tmpfsSizeOption(bytes: number): string {
  if (bytes % GiB === 0) return `${bytes / GiB}g`;
  if (bytes % MiB === 0) return `${bytes / MiB}m`;
  return `${Math.ceil(bytes / 1024)}k`;
}
