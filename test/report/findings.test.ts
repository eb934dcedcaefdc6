// The report findings of the real-build review, on temp copies of the hand-written run:
// buildstats alone, every target named and kept in the printed command (and safe to paste),
// a stopped build never "fits", buildstats found in rambake-keep after revert, damaged
// timelines read in part with what was skipped, and a file that is not a timeline refused.

import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collectReport } from '../../src/analyze/report-read.js';
import { NothingYetError, UsageError } from '../../src/errors.js';
import { renderReportText } from '../../src/report/report-text.js';
import { makeColors } from '../../src/text/format.js';
import { tempDir } from '../helpers/exec.js';
import { buildWithRun, confOnly } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const RUN = join('rambake', 'runs', '20251130-142600.jsonl');
const BUILD = '20251130142602';
const LOG = join('log', 'cooker', 'qemux86-64', '20251130142601.log');

function setup() {
  const b = buildWithRun('tmpfs-run-kernel-peak');
  cleanup = b.cleanup;
  return { ...b, run: join(b.topdir, RUN) };
}

/** The run's lines as objects, edited, written back. */
function editRun(file: string, edit: (lines: Record<string, unknown>[]) => Record<string, unknown>[]) {
  const lines = readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  writeFileSync(
    file,
    `${edit(lines)
      .map((l) => JSON.stringify(l))
      .join('\n')}\n`,
  );
}

const text = (r: Awaited<ReturnType<typeof collectReport>>) =>
  renderReportText(r, makeColors(false)).join('\n');

describe('report from buildstats alone', () => {
  it('without a recorded run: CPU, sstate, churn of the newest build; no fill, no peaks', async () => {
    const b = setup();
    rmSync(join(b.topdir, 'rambake'), { recursive: true });
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run).toMatchObject({
      source: 'buildstats',
      file: join(b.topdir, 'tmp', 'buildstats', BUILD),
      builds: [BUILD],
      targets: [],
    });
    expect(r.fill.points).toEqual([]);
    expect(r.topByPeak).toEqual([]);
    expect(r.topByCpu.map((x) => x.pn)).toEqual(['linux-yocto', 'gcc-cross-x86_64', 'busybox', 'zlib']);
    expect(r.sstate[0]?.summary).toMatchObject({ wanted: 12, local: 3, missed: 9 });
    expect(r.churn?.builds[0]?.redundant.map((x) => x.pf)).toEqual(['zlib-1.3.1-r0']);
    expect(r.recommendations.map((x) => x.rule)).not.toContain('tmpfs-size');
    const t = text(r);
    expect(t).toContain(`rambake report: buildstats ${BUILD} (no recorded run)`);
    expect(t).toContain('Top recipes by CPU time');
    expect(t).toContain('Sstate reuse and churn');
    expect(t).not.toContain('Usage');
    expect(t).not.toContain('Top recipes by peak');
    expect(t).not.toContain('Lingering');
  });

  it('with neither a run nor buildstats: nothing yet, naming both places', async () => {
    const b = setup();
    rmSync(join(b.topdir, 'rambake'), { recursive: true });
    rmSync(join(b.topdir, 'tmp', 'buildstats'), { recursive: true });
    const err = await collectReport(confOnly(b.topdir), { plan: false }).catch((e: unknown) => e);
    // Exit 3: nothing to analyse yet (README's exit-code table).
    expect(err).toBeInstanceOf(NothingYetError);
    expect((err as Error).message).toMatch(
      /no recorded run in .*rambake\/runs and no buildstats in .*rambake-keep\/buildstats/,
    );
  });
});

describe('targets and the printed command', () => {
  const canaryDir = tempDir('rambake-canary-');
  afterAll(canaryDir.cleanup);
  const canary = join(canaryDir.path, 'pwned');
  const hostile = `$(touch\${IFS}${canary})`;

  it('names every target, and the steps-giant command keeps the whole bitbake command, quoted', async () => {
    const b = setup();
    const command = [
      'bitbake',
      '-k',
      '-c',
      'build',
      'core-image-minimal',
      hostile,
      "it's",
      `\`touch ${canary}\``,
      `zlib\ntouch ${canary}`,
      '--',
      '-cclean',
    ];
    editRun(b.run, (lines) => lines.map((l) => (l.type === 'header' ? { ...l, command } : l)));
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.targets).toEqual(['core-image-minimal', ...command.slice(5, 9), '-cclean']);
    expect(text(r).startsWith(`rambake report: ${r.run.targets.join(' ')}\n`)).toBe(true);
    const giant = r.recommendations.filter((x) => x.rule === 'steps-giant').at(-1)!;
    const line = giant.text.slice(giant.text.indexOf('rambake run'));
    // Pasted into sh with rambake as a function printing its argv: the words arrive unchanged.
    const out = execFileSync('sh', ['-c', `rambake() { printf '<%s>' "$@"; }\n${line}\n`], {
      encoding: 'utf8',
    });
    expect([...out.matchAll(/<([^>]*)>/g)].map((m) => m[1])).toEqual([
      'run',
      '--steps=linux-yocto,gcc-cross-x86_64',
      '--',
      ...command,
    ]);
    expect(existsSync(canary)).toBe(false);
  });

  it('a run in steps stopped at its first step: the command printed is still the whole build', async () => {
    const b = setup();
    const steps = [
      ['bitbake', 'linux-yocto'],
      ['bitbake', 'core-image-minimal'],
    ];
    editRun(b.run, (lines) => {
      const out = lines.map((l) => (l.type === 'header' ? { ...l, command: steps.flat(), steps } : l));
      const t = out[1]!.t as number;
      out.splice(1, 0, { type: 'step-start', t, index: 0, command: steps[0] });
      out.splice(out.length - 1, 0, {
        type: 'step-end',
        t: 1764513060000,
        index: 0,
        command: steps[0],
        exitCode: 1,
      });
      return out;
    });
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.commands).toEqual(steps);
    expect(r.run.targets).toEqual(['core-image-minimal']);
    expect(r.steps.map((s) => [s.index, s.exitCode])).toEqual([[0, 1]]);
    expect(r.run.stopped).toEqual({ kind: 'failed', message: 'step 1 exited with 1' });
    const giant = r.recommendations.filter((x) => x.rule === 'steps-giant').at(-1)!;
    expect(giant.text).toMatch(/-- bitbake core-image-minimal$/);
    const t = text(r);
    expect(t.split('\n')[0]).toBe('rambake report: core-image-minimal in 2 steps');
    expect(t).toMatch(/commands +bitbake linux-yocto, then bitbake core-image-minimal/);
    expect(t).toMatch(
      /Steps \(1\)\n +step +peak +outcome +command\n +1 +\S+ \S+ +exit 1 +bitbake linux-yocto/,
    );
  });

  it('a run recorded without a command prints no made-up one', async () => {
    const b = setup();
    editRun(b.run, (lines) =>
      lines.map((l) => {
        if (l.type !== 'header') return l;
        const { command: _c, ...rest } = l;
        return rest;
      }),
    );
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.targets).toEqual([]);
    const giant = r.recommendations.filter((x) => x.rule === 'steps-giant').at(-1)!;
    expect(giant.text).toContain('followed by the bitbake command (this run recorded none)');
    expect(giant.text).not.toContain('<target>');
  });
});

describe('a build that did not finish never "fits"', () => {
  it("BitBake's disk monitor in the console log: stopped, a warning, no 'fits'", async () => {
    const b = setup();
    appendFileSync(
      join(b.topdir, 'tmp', LOG),
      'ERROR: No new tasks can be executed since the disk space monitor action is "STOPTASKS"!\n',
    );
    editRun(b.run, (lines) => lines.map((l) => (l.type === 'summary' ? { ...l, exitCode: 1 } : l)));
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.stopped).toEqual({
      kind: 'diskmon',
      message: 'No new tasks can be executed since the disk space monitor action is "STOPTASKS"!',
    });
    const size = r.recommendations.find((x) => x.rule === 'tmpfs-size')!;
    expect(size.severity).toBe('warn');
    expect(size.text).toContain('the 8.00 GiB tmpfs did not hold it');
    for (const x of r.recommendations) expect(x.text).not.toMatch(/\bfits\b/);
    expect(text(r)).toMatch(/outcome +stopped by BitBake's disk monitor: No new tasks/);
  });

  it('a failed command alone (no monitor, no ENOSPC) is stopped too', async () => {
    const b = setup();
    editRun(b.run, (lines) => lines.map((l) => (l.type === 'summary' ? { ...l, exitCode: 1 } : l)));
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.stopped).toEqual({ kind: 'failed', message: 'the command exited with 1' });
    expect(r.recommendations.some((x) => /\bfits\b/.test(x.text))).toBe(false);
  });
});

describe('after revert: buildstats where apply put them', () => {
  it('reads rambake-keep/buildstats and its console log, not an older build in BUILDSTATS_BASE', async () => {
    const b = setup();
    const keep = join(b.topdir, 'rambake-keep');
    mkdirSync(join(keep, 'buildstats'), { recursive: true });
    renameSync(join(b.topdir, 'tmp', 'buildstats', BUILD), join(keep, 'buildstats', BUILD));
    renameSync(join(b.topdir, 'tmp', 'log'), join(keep, 'log'));
    // A build on disk from before apply, with a task of its own.
    const older = join(b.topdir, 'tmp', 'buildstats', '20251129100000', 'zlib-1.3.0-r0');
    mkdirSync(older, { recursive: true });
    writeFileSync(
      join(older, 'do_compile'),
      'Event: TaskStarted\nStarted: 1764410400.00\nEnded: 1764410460.00\nElapsed time: 60.00 seconds\nutime: 5000\nStatus: PASSED\n',
    );
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.buildstatsBase).toBe(join(keep, 'buildstats'));
    expect(r.run.builds).toEqual([BUILD]);
    expect(r.topByCpu.map((x) => x.pf)).not.toContain('zlib-1.3.0-r0');
    expect(r.sstate[0]?.summary).toMatchObject({ wanted: 12 });
    expect(r.churn?.builds[0]?.redundant.map((x) => x.pf)).toEqual(['zlib-1.3.1-r0']);
  });
});

describe('damaged timelines', () => {
  it('lines of the wrong shape are skipped by line number with the reason; the rest is a report', async () => {
    const b = setup();
    editRun(b.run, (lines) => {
      const out = [...lines];
      const header = out[0]!;
      const { tmpfs: _t, ...noTmpfs } = header;
      out.splice(1, 0, noTmpfs); // line 2: a second header without tmpfs
      out.splice(3, 0, {
        type: 'sample',
        t: 1764512765000,
        fs: { usedBytes: 1, totalBytes: 2, usedInodes: 1, totalInodes: 2 },
      }); // line 4
      out.splice(4, 0, {
        type: 'sample',
        t: 1e308,
        fs: { usedBytes: 1, totalBytes: 2, usedInodes: 1, totalInodes: 2 },
        workdirs: {},
      }); // line 5
      const last = out.length - 1;
      out[last] = { ...out[last]!, lingering: null }; // the summary
      return out;
    });
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    const why = Object.fromEntries(r.skipped.map((s) => [s.path, s.why]));
    const n = readFileSync(b.run, 'utf8').trimEnd().split('\n').length;
    expect(why[`${b.run}:2`]).toBe('"tmpfs" is missing: skipped');
    expect(why[`${b.run}:4`]).toBe('"workdirs" is missing: skipped');
    expect(why[`${b.run}:5`]).toBe('time 1e+308 is not a date: skipped');
    expect(why[`${b.run}:${n}`]).toBe('"lingering" is not valid (null): skipped');
    // The summary was dropped: figures recomputed from the samples, and said so.
    expect(r.run.complete).toBe(false);
    expect(r.usage.peak.bytes).toBe(4300 * 2 ** 20);
    expect(r.run.fs.sizeBytes).toBe(8 * 2 ** 30);
    const t = text(r);
    expect(t).toContain('no summary line (watcher killed?)');
    expect(t).toContain(`${b.run}:5: time 1e+308 is not a date: skipped`);
  });

  it('a header without tmpfs alone: run details unknown, the samples still read', async () => {
    const b = setup();
    editRun(b.run, (lines) =>
      lines.map((l) => {
        if (l.type !== 'header') return l;
        const { tmpfs: _t, ...rest } = l;
        return rest;
      }),
    );
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.skipped.map((s) => s.path)).toContain(`${b.run}:1`);
    expect(r.skipped).toContainEqual({ path: b.run, why: 'no header line: run details unknown' });
    expect(r.usage.peak.bytes).toBe(4300 * 2 ** 20);
    expect(text(r)).toContain('Top recipes by peak work-dir size');
  });

  it('a file with no timeline line at all is not a timeline: one line naming file and line', async () => {
    const b = setup();
    const notes = join(b.topdir, 'notes.txt');
    writeFileSync(notes, '\nhello world\n{"a":1}\n');
    const err = await collectReport(confOnly(b.topdir), { run: notes, plan: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      `${notes}:2: not a rambake timeline (not a JSON line): "hello world"`,
    );
    const json = join(b.topdir, 'other.jsonl');
    writeFileSync(json, '{"a":1}\n');
    const err2 = await collectReport(confOnly(b.topdir), { run: json, plan: false }).catch((e: unknown) => e);
    expect((err2 as Error).message).toBe(
      `${json}:1: not a rambake timeline (not a timeline line (no "type")): "{\\"a\\":1}"`,
    );
  });
});
