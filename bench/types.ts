// One row of `npm run bench`: a figure, the reference measured in the same run, and the goal.
export interface BenchRow {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  /**
   * measured: the figure was timed in this run; derived: computed from measured figures (a
   * share, a projection) or, for a reference, a figure from an earlier run (then `refName` says so).
   * Every row should say; the table prints `unstated` for one that does not.
   */
  kind?: 'measured' | 'derived';
  /** The reference measured in the same run (e.g. `du -sB1` wall time), when there is one. */
  reference?: number;
  /** What the reference is: `du -sB1`, `poky BuildStats.from_dir()`, … */
  refName?: string;
  /** value / reference, or the figure that the goal is about. */
  ratio?: number;
  goal?: string;
  ok?: boolean;
  /** 1-minute load average while the row was measured (run.ts fills it per bench when unset). */
  load?: string;
}

export type Bench = () => Promise<BenchRow[]>;
