// The shape of each timeline line, checked before a reader trusts it. A timeline lives in the
// user-writable build directory and outlives crashes and hand edits: a sample without
// `workdirs`, a header without `tmpfs`, `lingering: null` or `t: 1e308` must be skipped (and
// named) rather than crash a report halfway. Pure.
//   {"type":"sample","t":1e308,…} → 'time 1e+308 is not a date'

type Obj = Record<string, unknown>;

/** The latest time a JavaScript Date holds (±8.64e15 ms). */
const MAX_T = 8.64e15;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isStr = (v: unknown) => typeof v === 'string';
const isArgv = (v: unknown) => Array.isArray(v) && v.every(isStr);

function fields(
  o: Obj,
  check: (v: unknown) => boolean,
  names: string[],
  optional = false,
): string | undefined {
  for (const name of names) {
    if (optional && o[name] === undefined) continue;
    if (!check(o[name])) return `"${name}" is ${describe(o[name])}`;
  }
  return undefined;
}

function describe(v: unknown): string {
  if (v === undefined) return 'missing';
  const text = JSON.stringify(v) ?? String(v);
  return `not valid (${text.length > 40 ? `${text.slice(0, 39)}…` : text})`;
}

function checkTime(o: Obj): string | undefined {
  const t = o.t;
  if (typeof t !== 'number' || !Number.isFinite(t) || t < 0 || t > MAX_T)
    return t === undefined ? '"t" is missing' : `time ${String(t)} is not a date`;
  return undefined;
}

function checkRecord(o: Obj, name: string): string | undefined {
  const r = o[name];
  if (!isObj(r)) return `"${name}" is ${describe(r)}`;
  for (const [k, v] of Object.entries(r)) if (!isCount(v)) return `"${name}.${k}" is ${describe(v)}`;
  return undefined;
}

function checkHeader(o: Obj): string | undefined {
  if (!isStr(o.startedAt) || !Number.isFinite(Date.parse(o.startedAt as string)))
    return `"startedAt" is ${describe(o.startedAt)}`;
  const tmpfs = o.tmpfs;
  if (!isObj(tmpfs)) return `"tmpfs" is ${describe(tmpfs)}`;
  return (
    fields(o, isStr, ['buildDir', 'tmpdir']) ??
    fields(tmpfs, isStr, ['mountPoint', 'fsType', 'source']) ??
    fields(tmpfs, isCount, ['sizeBytes', 'nrInodes'], true) ??
    fields(o, isArgv, ['command'], true) ??
    fields(o, (v) => Array.isArray(v) && v.every(isArgv), ['steps'], true)
  );
}

function checkSummary(o: Obj): string | undefined {
  const peak = o.peak;
  if (!isObj(peak)) return `"peak" is ${describe(peak)}`;
  const lingering = o.lingering;
  if (!Array.isArray(lingering)) return `"lingering" is ${describe(lingering)}`;
  for (const l of lingering) {
    if (!isObj(l)) return `a "lingering" entry is ${describe(l)}`;
    const bad = fields(l, isStr, ['pn', 'pv', 'workdir', 'state', 'reason']) ?? fields(l, isCount, ['bytes']);
    if (bad) return `a "lingering" entry: ${bad}`;
  }
  return (
    fields(peak, isCount, ['bytes', 'inodes']) ??
    checkTime({ t: peak.at }) ??
    fields(o, isCount, ['heldGiBMin']) ??
    checkRecord(o, 'workdirPeaks') ??
    fields(o, Number.isInteger, ['exitCode'], true)
  );
}

/** Why a parsed line cannot be used, or undefined when it has the shape its `type` promises. */
export function timelineLineProblem(v: unknown): string | undefined {
  if (!isObj(v) || !isStr(v.type)) return 'not a timeline line (no "type")';
  if (v.type === 'header') return checkHeader(v);
  const time = checkTime(v);
  if (time) return time;
  switch (v.type) {
    case 'sample': {
      const fs = v.fs;
      if (!isObj(fs)) return `"fs" is ${describe(fs)}`;
      return (
        fields(fs, isCount, ['usedBytes', 'totalBytes', 'usedInodes', 'totalInodes']) ??
        checkRecord(v, 'workdirs')
      );
    }
    case 'summary':
      return checkSummary(v);
    case 'task-start':
    case 'task-end':
      return fields(v, isStr, ['pn', 'task']) ?? fields(v, (x) => typeof x === 'boolean', ['setscene']);
    case 'workdir-appear':
    case 'workdir-disappear':
      return fields(v, isStr, ['workdir', 'arch', 'pn', 'pv']);
    case 'workdir-state':
      return fields(v, isStr, ['workdir', 'pn', 'pv', 'state']);
    case 'enospc':
      return fields(v, isStr, ['message']);
    case 'build-start':
    case 'build-end':
      return fields(v, Number.isInteger, ['exitCode'], true);
    case 'step-start':
    case 'step-end':
      return (
        fields(v, Number.isInteger, ['index']) ??
        fields(v, isArgv, ['command']) ??
        fields(v, Number.isInteger, ['exitCode'], true)
      );
    default:
      return `unknown line type ${describe(v.type).replace(/^not valid /, '')}`;
  }
}
