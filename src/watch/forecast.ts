// Time-to-full from the recent slope of the file system's fill, and who writes fastest. Pure.

export interface FillPoint {
  /** Epoch ms. */
  t: number;
  usedBytes: number;
  totalBytes: number;
  /** Bytes per work dir measured at `t` (only the dirs sized then). */
  workdirs?: Record<string, number>;
}

export interface Forecast {
  /** Least-squares slope over the window, bytes per second (negative while space frees). */
  bytesPerSecond: number;
  /** Seconds until the file system is full at that rate; undefined when not filling. */
  secondsToFull?: number;
  /** The work dir that grew fastest over the window. */
  topWriter?: { workdir: string; bytesPerSecond: number };
}

/** Forecast from the points inside the last `windowMs` (at least two points are needed). */
export function forecastFill(points: readonly FillPoint[], windowMs = 60_000): Forecast | undefined {
  const last = points[points.length - 1];
  if (!last) return undefined;
  const recent = points.filter((p) => p.t >= last.t - windowMs);
  if (recent.length < 2) return undefined;
  const slope = leastSquaresSlope(recent.map((p) => [p.t / 1000, p.usedBytes]));
  const forecast: Forecast = { bytesPerSecond: slope };
  const free = last.totalBytes - last.usedBytes;
  if (slope > 0) forecast.secondsToFull = Math.max(0, free / slope);
  const writer = fastestWriter(recent);
  if (writer) forecast.topWriter = writer;
  return forecast;
}

function leastSquaresSlope(xy: [number, number][]): number {
  const n = xy.length;
  const mx = xy.reduce((s, [x]) => s + x, 0) / n;
  const my = xy.reduce((s, [, y]) => s + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of xy) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/** Growth between each dir's first and last measurement in the window. */
function fastestWriter(points: readonly FillPoint[]): Forecast['topWriter'] {
  const first = new Map<string, [number, number]>();
  const lastSeen = new Map<string, [number, number]>();
  for (const p of points) {
    for (const [w, b] of Object.entries(p.workdirs ?? {})) {
      if (!first.has(w)) first.set(w, [p.t, b]);
      lastSeen.set(w, [p.t, b]);
    }
  }
  let best: Forecast['topWriter'];
  for (const [w, [t0, b0]] of first) {
    const [t1, b1] = lastSeen.get(w)!;
    if (t1 <= t0) continue;
    const rate = (b1 - b0) / ((t1 - t0) / 1000);
    if (rate > 0 && (!best || rate > best.bytesPerSecond)) best = { workdir: w, bytesPerSecond: rate };
  }
  return best;
}
