// One row of `npm run bench`: a figure, the reference measured in the same run, and the goal.
export interface BenchRow {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  /** The reference measured in the same run (e.g. `du -sB1` wall time), when there is one. */
  reference?: number;
  /** value / reference, or the figure that the goal is about. */
  ratio?: number;
  goal?: string;
  ok?: boolean;
}

export type Bench = () => Promise<BenchRow[]>;
