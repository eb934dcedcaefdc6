// Build-record mutations: a timeline line or a JSON file (state.json, a saved scan) with a field
// gone, null, huge, of the wrong type; a buildstats entry with odd numbers or fields; a console
// log with lines BitBake never prints in that shape. On top of the byte and line mutations.

import { BYTE_MUTATIONS, insertAt, LINE_MUTATIONS, lineMutation, type Mutation } from './mutate-bytes.js';
import type { Random } from './random.js';

const ODD_VALUES: unknown[] = [
  null,
  1e308,
  -1e308,
  -1,
  0,
  2 ** 53 + 2,
  0.5,
  '',
  'x',
  '$(touch /tmp/x)',
  '../../../../etc/passwd',
  '/dev/zero',
  '/',
  true,
  [],
  {},
  [null],
  { a: { b: null } },
  'x'.repeat(100_000),
];

type Json = unknown;

/** Every path into a JSON value (object keys and array indexes), the root excluded. */
function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const p = [...prefix, Array.isArray(value) ? Number(k) : k];
      out.push(p);
      if (out.length < 10_000) paths(v, p, out);
    }
  }
  return out;
}

/** One field of a JSON value deleted or given an odd value; the root replaced sometimes. */
export function mutateJson(rng: Random, value: Json): Json {
  const all = paths(value);
  if (all.length === 0 || rng.chance(0.05)) return rng.pick(ODD_VALUES);
  const path = rng.pick(all);
  let parent = value as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (rng.chance(0.3) && !Array.isArray(parent)) delete parent[last];
  else parent[last] = structuredClone(rng.pick(ODD_VALUES));
  return value;
}

const reJson = (text: string, rng: Random): string => {
  try {
    return JSON.stringify(mutateJson(rng, JSON.parse(text)));
  } catch {
    return text;
  }
};

/** A JSON file (state.json, a saved scan): one field changed. */
export const JSON_FILE_MUTATIONS: Mutation[] = [
  ...BYTE_MUTATIONS,
  ...Array.from({ length: 12 }, () => ({
    name: 'a JSON field changed',
    apply: (r: Random, d: Buffer) => ({ kind: 'bytes' as const, data: Buffer.from(reJson(d.toString(), r)) }),
  })),
];

const TIMELINE_TYPES = [
  'header',
  'sample',
  'build-start',
  'build-end',
  'task-start',
  'task-end',
  'workdir-state',
  'end',
  'x',
];

/** A timeline (runs/*.jsonl): one line's field changed, a line's type changed, odd lines added. */
export const TIMELINE_MUTATIONS: Mutation[] = [
  ...BYTE_MUTATIONS,
  ...LINE_MUTATIONS,
  ...Array.from({ length: 12 }, () =>
    lineMutation('a timeline field changed', (r, l) => {
      const i = r.int(0, Math.max(0, l.length - 2));
      l[i] = reJson(l[i] ?? '', r);
    }),
  ),
  lineMutation('a line type changed', (r, l) => {
    const i = r.int(0, Math.max(0, l.length - 2));
    try {
      const v = JSON.parse(l[i] ?? '');
      v.type = r.pick(TIMELINE_TYPES);
      l[i] = JSON.stringify(v);
    } catch {}
  }),
  lineMutation('the header dropped', (_r, l) => void l.shift()),
  lineMutation(
    'an odd JSON line',
    (r, l) =>
      void l.splice(
        r.int(0, l.length),
        0,
        r.pick(['{}', '[]', 'null', '1', '"x"', '{"type":"sample"}', '{"type":"header"}', '{']),
      ),
  ),
];

const BUILDSTATS_LINES = [
  'Started: 1e308',
  'Started: -1',
  'Started: x',
  'Ended: 0',
  'Ended: NaN',
  'Elapsed time: -5 seconds',
  'Status: ',
  'Status: FAILED',
  'rusage ru_utime: 1e400',
  'Child rusage ru_stime: -0',
  'IO read_bytes: 99999999999999999999999',
  'Event: ',
  ': :',
  'Started:',
  'x'.repeat(10_000),
];

/** A buildstats entry or build_stats file: odd field lines. */
export const BUILDSTATS_MUTATIONS: Mutation[] = [
  ...BYTE_MUTATIONS,
  ...LINE_MUTATIONS,
  ...Array.from({ length: 10 }, () =>
    lineMutation(
      'an odd buildstats line',
      (r, l) => void l.splice(r.int(0, l.length), 0, r.pick(BUILDSTATS_LINES)),
    ),
  ),
];

const CONSOLE_LINES = [
  'NOTE: Running task 99999999999 of 1 (/x/y.bb:do_compile)',
  'NOTE: Running setscene task 1 of 0 (:do_package_setscene)',
  'NOTE: recipe $(touch /tmp/x)-1.0-r0: task do_compile: Started',
  'NOTE: recipe -r0: task : Succeeded',
  "NOTE: Tasks Summary: Attempted -1 tasks of which 1e308 didn't need to be rerun and all succeeded.",
  'Sstate summary: Wanted 1e308 Local x Mirrors -1 Missed 0 Current 0 (NaN% match, 200% complete)',
  "ERROR: Task (/x.bb:do_x) failed with exit code '-1'",
  'Summary: There were 99999999999999999999 ERROR messages.',
  'mc:x:y:NOTE: recipe a-1-r0: task do_b: Started',
  '\u001b[2K\u001b[1A\r',
  'NOTE: Executing Tasks',
];

/** A console log (log/cooker/<machine>/*.log): odd BitBake-shaped lines. */
export const CONSOLE_MUTATIONS: Mutation[] = [
  ...BYTE_MUTATIONS,
  ...LINE_MUTATIONS,
  ...Array.from({ length: 10 }, () => ({
    name: 'an odd console line',
    apply: (r: Random, d: Buffer) => ({
      kind: 'bytes' as const,
      data: insertAt(r, d, Buffer.from(`${r.pick(CONSOLE_LINES)}\n`), true),
    }),
  })),
];
