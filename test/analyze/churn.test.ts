// §11's definitions on hand-written builds: buildstats folders and console logs in BitBake's
// formats, read through the same readers the command uses.

import { describe, expect, it } from 'vitest';
import { collectChurn } from '../../src/analyze/churn-read.js';
import { renderChurn } from '../../src/report/churn.js';
import { makeColors } from '../../src/text/format.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { buildWithFixture, confOnly, sanitize } from './helpers.js';

const cleanups = cleanupsAfterEach();

async function churnOf(fixture: string, builds = 5) {
  const ex = buildWithFixture(fixture);
  cleanups.push(ex.cleanup);
  return { ex, report: await collectChurn(confOnly(ex.topdir), { builds }) };
}

describe('redundant-package-setscene', () => {
  it('finds the restore no consumer used, in builds 2 and 3, and calls it recurring churn', async () => {
    const { report } = await churnOf('redundant-package-setscene');
    expect(report.builds.map((b) => b.name)).toEqual(['20251130100000', '20251130110000', '20251130120000']);
    const [b1, b2, b3] = report.builds;
    expect(b1!.redundant).toEqual([]);
    expect(b2!.redundant).toMatchObject([{ pf: 'zlib-1.3.1-r0', pn: 'zlib', elapsed: 2.4, wchar: 9437184 }]);
    expect(b2!.redundant[0]!.rmWorkRan).toBe(false);
    expect(b3!.redundant).toMatchObject([
      { pf: 'zlib-1.3.1-r0', elapsed: 2.6, wchar: 9437184, writeBytes: 0 },
    ]);
    expect(report.recurring).toEqual([
      {
        pn: 'zlib',
        pf: 'zlib-1.3.1-r0',
        builds: ['20251130110000', '20251130120000'],
        elapsed: 5,
        wchar: 18874368,
      },
    ]);
    expect(report.churn).toBe(true);
  });

  it('takes the newest build side evidence from WORKDIR, stamps and SSTATE_DIR', async () => {
    const { report } = await churnOf('redundant-package-setscene');
    const newest = report.builds[2]!.redundant[0]!;
    expect(newest.packagesSplitLeft).toBe(true);
    expect(newest.cause).toMatchObject({
      kind: 'consumer-object-missing',
      detail: 'no sstate object in SSTATE_DIR for do_package_qa',
    });
    // Evidence describes the file system now: older builds get none.
    expect(report.builds[1]!.redundant[0]!.packagesSplitLeft).toBeUndefined();
  });

  it('reads the Sstate summary and counts setscene against real runs per sstate task', async () => {
    const { report } = await churnOf('redundant-package-setscene');
    const b2 = report.builds[1]!;
    expect(b2.sstate).toEqual({
      wanted: 3,
      local: 3,
      mirrors: 0,
      missed: 0,
      current: 40,
      matchPercent: 100,
      completePercent: 100,
    });
    expect(b2.finished).toBe(true);
    expect(b2.reuse).toEqual([
      { task: 'do_populate_sysroot', setscene: 1, real: 0 },
      { task: 'do_package', setscene: 1, real: 0 },
      { task: 'do_package_write_ipk', setscene: 1, real: 0 },
    ]);
    expect(report.builds[0]!.reuse.find((r) => r.task === 'do_package')).toEqual({
      task: 'do_package',
      setscene: 0,
      real: 1,
    });
  });

  it('matches golden text and JSON', async () => {
    const { ex, report } = await churnOf('redundant-package-setscene');
    const text = renderChurn(report, makeColors(false)).join('\n');
    await expect(sanitize(text, ex.root)).toMatchFileSnapshot(
      '../fixtures/analyze/golden/churn-redundant.txt',
    );
    const json = sanitize(JSON.stringify(report, null, 2), ex.root);
    await expect(json).toMatchFileSnapshot('../fixtures/analyze/golden/churn-redundant.json');
  });
});

describe('legitimate-restore', () => {
  it('counts a restore followed by a real consumer apart, and is not churn', async () => {
    const { report } = await churnOf('legitimate-restore');
    const [b] = report.builds;
    expect(b!.redundant).toEqual([]);
    expect(b!.legitimate).toMatchObject([
      { pf: 'zlib-1.3.1-r0', consumers: ['do_package_qa'], rmWorkRan: true },
    ]);
    expect(report.churn).toBe(false);
  });
});

describe('write-setscene-after-rm-work', () => {
  it('finds the one-time do_package_write_ipk_setscene after the build that ran rm_work', async () => {
    const { report } = await churnOf('write-setscene-after-rm-work');
    expect(report.builds[0]!.writeSetsceneAfterRmWork).toEqual([]);
    expect(report.builds[1]!.writeSetsceneAfterRmWork).toEqual([
      {
        pf: 'zlib-1.3.1-r0',
        pn: 'zlib',
        task: 'do_package_write_ipk_setscene',
        elapsed: 0.9,
        wchar: 4718592,
        writeBytes: 0,
      },
    ]);
    expect(report.builds[1]!.redundant).toEqual([]);
    expect(report.churn).toBe(false);
  });

  it('with --builds 1 still reads the build before as context, without reporting it', async () => {
    const { report } = await churnOf('write-setscene-after-rm-work', 1);
    expect(report.builds.map((b) => b.name)).toEqual(['20251202081500']);
    expect(report.builds[0]!.writeSetsceneAfterRmWork).toHaveLength(1);
  });
});

describe('running-build-torn-records', () => {
  it('reads what is valid and names what it skipped and why', async () => {
    const { ex, report } = await churnOf('running-build-torn-records');
    const b = report.builds[0]!;
    expect(b.finished).toBe(false);
    expect(b.tasks).toEqual({ real: 0, setscene: 1, unfinished: 3 });
    // The half-written busybox restore did not finish: it restored nothing.
    expect(b.redundant.map((r) => r.pf)).toEqual(['zlib-1.3.1-r0']);
    expect(b.sstate?.wanted).toBe(2);
    const skipped = report.skipped.map((s) => `${sanitize(s.path, ex.root)}: ${s.why}`);
    const stats = '<tmp>/build/tmp/buildstats/20251203070000';
    expect(skipped).toEqual(
      expect.arrayContaining([
        `${stats}/busybox-1.37.0-r0/do_package_setscene: task did not finish (still running, or a setscene that failed)`,
        `${stats}/busybox-1.37.0-r0/do_compile: 3 line(s) not in buildstats format (binary or torn)`,
        `${stats}/zlib-1.3.1-r0/do_package_write_ipk_setscene: task did not finish (still running, or a setscene that failed)`,
        '<tmp>/build/tmp/log/cooker/qemux86-64/20251203065958.log: no Tasks Summary: the build is running or was stopped',
      ]),
    );
  });
});
