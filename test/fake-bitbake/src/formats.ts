// BitBake's text formats, as pure functions (bitbake-formats.md §8, §9; buildstats.bbclass).

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Local `YYYYmmddHHMMSS` (DATETIME: console and event log names). */
export function formatDatetime(d: Date): string {
  return `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
}

/** UTC `YYYYmmddHHMMSS` (BUILDNAME: the buildstats folder). */
export function formatBuildName(d: Date): string {
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`;
}

/** `20251130-142627.570460 do_compile (30150): log.do_compile.30150` (local time, %f = µs). */
export function formatTaskOrderLine(d: Date, micros: number, task: string, pid: number): string {
  const stamp = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  const us = pad(d.getMilliseconds() * 1000 + (micros % 1000), 6);
  return `${stamp}.${us} ${task} (${pid}): log.${task}.${pid}\n`;
}

/** The two lines written at TaskStarted; note the trailing blanks. */
export function formatBuildstatsStart(startEpoch: number): string {
  return `Event: TaskStarted \nStarted: ${startEpoch.toFixed(2)} \n`;
}

export interface TaskUsage {
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
  io: Record<string, number>;
  rusage: Record<string, number>;
  childRusage: Record<string, number>;
}

export const RUSAGE_KEYS = [
  'ru_utime',
  'ru_stime',
  'ru_maxrss',
  'ru_minflt',
  'ru_majflt',
  'ru_inblock',
  'ru_oublock',
  'ru_nvcsw',
  'ru_nivcsw',
];

export const IO_KEYS = [
  'rchar',
  'wchar',
  'syscr',
  'syscw',
  'read_bytes',
  'write_bytes',
  'cancelled_write_bytes',
];

/** What TaskSucceeded/TaskFailed append: PF line … `Status:` and `Ended:` with trailing blanks. */
export function formatBuildstatsEnd(
  pf: string,
  task: string,
  elapsed: number,
  usage: TaskUsage,
  passed: boolean,
  endEpoch: number,
): string {
  const lines = [`${pf}: ${task}`, `Elapsed time: ${elapsed.toFixed(2)} seconds`];
  lines.push(`utime: ${usage.utime}`, `stime: ${usage.stime}`, `cutime: ${usage.cutime}`);
  lines.push(`cstime: ${usage.cstime}`);
  for (const k of IO_KEYS) lines.push(`IO ${k}: ${usage.io[k] ?? 0}`);
  for (const k of RUSAGE_KEYS) lines.push(`rusage ${k}: ${usage.rusage[k] ?? 0}`);
  for (const k of RUSAGE_KEYS) lines.push(`Child rusage ${k}: ${usage.childRusage[k] ?? 0}`);
  lines.push(`Status: ${passed ? 'PASSED' : 'FAILED'} `, `Ended: ${endEpoch.toFixed(2)} `);
  return `${lines.join('\n')}\n`;
}

/** build_stats at BuildStarted: each uname field followed by a blank, as the class writes it. */
export function formatBuildStatsStart(uname: string[], startEpoch: number): string {
  return `Host Info: ${uname.map((u) => `${u} `).join('')}\nBuild Started: ${startEpoch.toFixed(2)} \n`;
}

export function formatBuildStatsEnd(elapsed: number, cpuPercent: number): string {
  return `Elapsed time: ${elapsed.toFixed(2)} seconds \nCPU usage: ${cpuPercent.toFixed(1)}% \n`;
}

export function formatBuildStatsFailure(pf: string, task: string): string {
  return `Failed at: ${pf} at task: ${task} \n`;
}

export interface SstateCounts {
  wanted: number;
  local: number;
  mirrors: number;
  missed: number;
  current: number;
}

/** `Sstate summary: Wanted 42 Local 40 Mirrors 0 Missed 2 Current 10 (95% match, 96% complete)` */
export function formatSstateSummary(c: SstateCounts): string {
  const found = c.local + c.mirrors;
  const match = c.wanted > 0 ? Math.trunc((found / c.wanted) * 100) : 0;
  const all = c.wanted + c.current;
  const complete = all > 0 ? Math.trunc(((found + c.current) / all) * 100) : 0;
  return `Sstate summary: Wanted ${c.wanted} Local ${c.local} Mirrors ${c.mirrors} Missed ${c.missed} Current ${c.current} (${match}% match, ${complete}% complete)`;
}

/** `NOTE: Tasks Summary: Attempted 30 tasks of which 12 didn't need to be rerun and all succeeded.` */
export function formatTasksSummary(attempted: number, skipped: number, failed: number): string {
  const tail = failed > 0 ? `${failed} failed.` : 'all succeeded.';
  return `NOTE: Tasks Summary: Attempted ${attempted} tasks of which ${skipped} didn't need to be rerun and ${tail}`;
}

/** `NAME                 = "value"`: BitBake pads names to 20 columns. */
export function formatConfigLine(name: string, value: string): string {
  return `${name.padEnd(20)} = "${value}"`;
}
