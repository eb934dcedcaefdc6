// Which measured build can stand for the task graph of some targets (steps-graph.ts): a
// recorded run or the buildstats history read covers targets only when it was a whole build of
// them; one of other targets, or a `-c TASK` run, cannot say what they need, so it does not
// answer. Pure, but for the refusal's wording.

import type { TaskSpan } from './footprint.js';
import { renderBitbakeCommand } from './mount-commands.js';
import type { History } from './sizing-types.js';

/** A build whose task spans can stand for the task graph, and the targets it was run for. */
export interface MeasuredBuild {
  source: 'recorded' | 'buildstats';
  where: string;
  spans: readonly TaskSpan[];
  /** Its own targets, when known (the recorded command, or BB_CMDLINE in the event log). */
  built?: readonly string[];
  /** The bitbake command it came from, when known. */
  command?: readonly string[];
  /** Where its recipes' start times come from (BitBake's buildstats when they cover it). */
  startSpans: readonly TaskSpan[];
}

/** Every recorded run with task events (newest first), then the buildstats history read. */
export function measuredBuilds(history: History): MeasuredBuild[] {
  // History's buildstats are the newest run's builds: they time that run's recipes best.
  const out: MeasuredBuild[] = [...history.runs]
    .reverse()
    .filter((r) => r.spans.length > 0)
    .map((r) => ({
      source: 'recorded',
      where: `the recorded run ${r.file}`,
      spans: r.spans,
      ...(r.targets.length > 0 ? { built: r.targets } : {}),
      ...commandOf(r.header?.steps?.at(-1) ?? r.header?.command),
      startSpans: r === history.run ? measuredSpans(history) : r.spans,
    }));
  if (history.times.spans.length > 0)
    out.push({
      source: 'buildstats',
      where: `buildstats ${history.times.builds.join(', ')}`,
      spans: history.times.spans,
      ...(history.builtTargets ? { built: history.builtTargets.targets } : {}),
      ...commandOf(history.builtTargets?.command),
      startSpans: history.times.spans,
    });
  return out;
}

/**
 * Pure: why a measured build does not cover the targets, undefined when it does. It covers
 * them when it ran (or was run for) each of them and its own targets are all among them: then
 * every recipe it ran was one they need, and nothing they need is missing. A build of other
 * targets does not say which of its recipes these need (zlib in an image build: its cross
 * compiler ran, but so did everything else).
 */
export function uncovered(b: MeasuredBuild, targets: readonly string[]): string | undefined {
  const ran = new Set(b.spans.map((s) => s.pn));
  const absent = targets.filter((t) => !ran.has(t) && !b.built?.includes(t));
  if (absent.length > 0) return `${b.where} ran no task of ${absent.join(', ')}`;
  const asked = targets.join(' ');
  const partial = partialBuildOption(b.command);
  if (partial) return `${b.where} ran bitbake ${partial}, not whole builds of its targets`;
  if (!b.built)
    return `${b.where}: its targets are not known (no event log names them), so what ${asked} needs is not known`;
  if (!b.built.every((t) => targets.includes(t)))
    return `${b.where} built ${b.built.join(' ')}: which of its recipes ${asked} needs is not known`;
  return undefined;
}

const commandOf = (command: readonly string[] | undefined) => (command ? { command } : {});

/** Options after which bitbake runs part of what its targets need, or builds nothing. */
const PARTIAL = ['-b', '--buildfile', '--runall', '--runonly', '-g', '--graphviz', '-p', '--parse-only'];
const NO_BUILD = ['-e', '--environment', '-S', '--dump-signatures'];

/**
 * Pure: the option that keeps a bitbake command from building its targets whole (`-c
 * cleansstate`, `--runonly=fetch`, `-b`…), undefined for a build (`-c build`, and `-C TASK`,
 * which runs the default task after). Example: `bitbake -c cleansstate zlib` → `-c cleansstate`.
 */
export function partialBuildOption(command: readonly string[] | undefined): string | undefined {
  if (!command) return undefined;
  const at = command.findIndex((a) => /(^|\/)bitbake$/.test(a));
  const args = at < 0 ? command : command.slice(at + 1);
  const isBuild = (task: string | undefined) => task === 'build' || task === 'do_build';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    const [flag = a, inline] = a.startsWith('--') ? a.split('=', 2) : [a, undefined];
    if (flag === '-c' || flag === '--cmd') {
      const task = inline ?? args[i + 1];
      if (!isBuild(task)) return `${flag} ${task ?? ''}`.trim();
    } else if (/^-c./.test(a)) {
      if (!isBuild(a.slice(2))) return `-c ${a.slice(2)}`;
    } else if (PARTIAL.includes(flag) || NO_BUILD.includes(flag)) return a;
  }
  return undefined;
}

/** The one line when no source covers the targets: which were asked, why each fell short, what to do. */
export function refusal(targets: readonly string[], builds: readonly MeasuredBuild[]): string {
  const asked = targets.join(' ');
  const why = builds.map((b) => uncovered(b, targets));
  const todo = `with bitbake on PATH (source oe-init-build-env) bitbake -g ${asked} gives the graph; or record a build of it: rambake run -- ${renderBitbakeCommand(targets)}`;
  // No measured build ran them at all: BitBake may not know them either.
  const nowhere = targets.filter((t) =>
    builds.every((b) => !b.built?.includes(t) && !b.spans.some((s) => s.pn === t)),
  );
  if (nowhere.length > 0)
    return `${nowhere.join(', ')} ${nowhere.length === 1 ? 'is' : 'are'} not in the build as measured (${why.join('; ')}): ${todo}`;
  return `no task graph covers ${asked} (${why.join('; ')}): ${todo}`;
}

/** The spans of the measured build: BitBake's buildstats, else the watcher's task events. */
export function measuredSpans(history: History): History['times']['spans'] {
  if (history.times.spans.length > 0) return history.times.spans;
  return history.run?.spans ?? [];
}
