// Truncated, empty, binary and half-written inputs are read as far as they are valid, and
// the report names what it skipped.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectReport } from '../../src/analyze/report-read.js';
import { UsageError } from '../../src/errors.js';
import { renderReportText } from '../../src/report/report-text.js';
import { makeColors } from '../../src/text/format.js';
import { buildWithRun, confOnly } from './helpers.js';

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

const RUN = join('rambake', 'runs', '20251130-142600.jsonl');
const BUILD = join('tmp', 'buildstats', '20251130142602');

function setup() {
  const b = buildWithRun('tmpfs-run-kernel-peak');
  cleanup = b.cleanup;
  return { ...b, run: join(b.topdir, RUN) };
}

describe('report on damaged inputs', () => {
  it('a watcher killed mid-write: no summary line, a torn last line', async () => {
    const b = setup();
    const lines = readFileSync(b.run, 'utf8').trimEnd().split('\n');
    lines.pop(); // the summary
    const torn = '{"type":"sample","t":1764513070000,"fs":{"usedBytes":39';
    writeFileSync(b.run, `${lines.join('\n')}\n${torn}`);
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.complete).toBe(false);
    expect(r.usage.peak.bytes).toBe(4300 * 2 ** 20);
    expect(r.lingering.map((l) => l.pn)).toEqual(['linux-yocto', 'busybox', 'netbase']);
    expect(r.skipped).toContainEqual({
      path: `${b.run}:${lines.length + 1}`,
      why: 'not a whole JSON line (torn or foreign): skipped',
    });
    const text = renderReportText(r, makeColors(false)).join('\n');
    expect(text).toContain('no summary line (watcher killed?)');
    expect(text).toContain(`${b.run}:${lines.length + 1}: not a whole JSON line`);
  });

  it('an empty timeline gives an empty report that says why', async () => {
    const b = setup();
    writeFileSync(b.run, '');
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.run.samples).toBe(0);
    expect(r.fill.points).toEqual([]);
    expect(r.usage.final).toBeNull();
    expect(r.skipped).toContainEqual({ path: b.run, why: 'no header line: run details unknown' });
    expect(r.recommendations).toEqual([]);
  });

  it('binary lines in the timeline are skipped by line number, the rest is read', async () => {
    const b = setup();
    const text = readFileSync(b.run, 'utf8').split('\n');
    text.splice(3, 0, '\u0000\u0001\u00ff\ufffdPK\u0003\u0004');
    writeFileSync(b.run, text.join('\n'));
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.skipped.map((s) => s.path)).toContain(`${b.run}:4`);
    expect(r.usage.peak.bytes).toBe(4300 * 2 ** 20);
  });

  it('half-written and binary buildstats task files are named; the others still count', async () => {
    const b = setup();
    const half = join(b.topdir, BUILD, 'busybox-1.37.0-r0', 'do_compile');
    writeFileSync(half, 'Event: TaskStarted \nStarted: 1764512862.00 \n');
    const binary = join(b.topdir, BUILD, 'zlib-1.3.1-r0', 'do_populate_sysroot_setscene');
    writeFileSync(binary, Buffer.from([0, 1, 2, 0xff, 0xfe, 10, 0x89, 0x50, 0x4e, 0x47, 10]));
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.skipped).toContainEqual({ path: half, why: 'task did not finish: no CPU figures' });
    expect(r.skipped.find((s) => s.path === binary)?.why).toMatch(/not in buildstats format/);
    expect(r.topByCpu.map((x) => x.pn)).toEqual(['linux-yocto', 'gcc-cross-x86_64', 'zlib']);
  });

  it('no console log: the Sstate summary is unknown and the log is named as missing', async () => {
    const b = setup();
    writeFileSync(join(b.topdir, 'tmp', 'log', 'cooker', 'qemux86-64', '20251130142601.log'), '');
    const r = await collectReport(confOnly(b.topdir), { plan: false });
    expect(r.sstate[0]?.summary).toBeNull();
    expect(r.skipped.some((s) => s.why.includes('no Tasks Summary'))).toBe(true);
  });

  it('no recorded run at all is a usage error with a hint', async () => {
    const b = setup();
    writeFileSync(b.run, '');
    await expect(
      collectReport(confOnly(b.topdir), { run: join(b.topdir, 'nope.jsonl'), plan: false }),
    ).rejects.toBeInstanceOf(UsageError);
  });
});
