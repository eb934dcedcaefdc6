import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  parseManifestName,
  parseSstateIndex,
  readSstateControl,
  stampToWorkdir,
} from '../../src/bitbake/sstatecontrol.js';
import { parseStampName, readRecipeStamps } from '../../src/bitbake/stamps.js';
import { parseTaskOrderLine, readTaskOrder } from '../../src/bitbake/taskorder.js';

const fixtures = fileURLToPath(new URL('../fixtures/records/', import.meta.url));

describe('log.task_order', () => {
  // The times are the builder's local time: pin the zone so the epoch values are known.
  let savedTz: string | undefined;
  beforeEach(() => {
    savedTz = process.env.TZ;
    process.env.TZ = 'Europe/Berlin';
  });
  afterEach(() => {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  });

  it('parses a line in local time, keeping microseconds', () => {
    const entry = parseTaskOrderLine(
      '20251130-142627.570460 do_package_write_ipk (30150): log.do_package_write_ipk.30150',
    );
    expect(entry).toEqual({
      time: expect.closeTo(Date.UTC(2025, 10, 30, 13, 26, 27) + 570.46, 3),
      task: 'do_package_write_ipk',
      setscene: false,
      pid: 30150,
      logFile: 'log.do_package_write_ipk.30150',
    });
  });

  it('reads a file with a setscene task, a garbage line and a torn last line', async () => {
    const order = await readTaskOrder(join(fixtures, 'task-order-local-time', 'log.task_order'));
    expect(order?.entries.map((e) => [e.task, e.setscene, e.pid, e.logFile])).toEqual([
      ['do_fetch', false, 29811, 'log.do_fetch.29811'],
      ['do_unpack', false, 29840, 'log.do_unpack.29840'],
      ['do_package_write_ipk', true, 30150, 'log.do_package_write_ipk_setscene.30150'],
    ]);
    expect(order?.entries[1]?.time).toBe(Date.UTC(2025, 10, 30, 13, 26, 28) + 1);
    expect(order?.skipped).toEqual(['not a task order line', '20251130-1427']);
    expect(await readTaskOrder(join(fixtures, 'task-order-local-time', 'missing'))).toBeUndefined();
  });
});

describe('stamp names', () => {
  const H = '3f9c2a4b5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7a8';
  const U = '0b1c2d3e4f5061728394a5b6c7d8e9f00112233445566778899aabbccddeeff0';

  it('reads every kind of stamp in a folder whose PV holds dots', async () => {
    const dir = join(fixtures, 'stamps-pv-with-dots', 'core2-64-poky-linux', 'linux-yocto');
    const pv = '6.12.9+git';
    expect(await readRecipeStamps(dir)).toEqual([
      { file: `${pv}.do_compile.${H}`, pv, task: 'do_compile', setscene: false, hash: H },
      {
        file: `${pv}.do_compile.sigdata.${U}`,
        pv,
        task: 'do_compile',
        setscene: false,
        sigdata: true,
        hash: U,
      },
      { file: `${pv}.do_compile.taint`, pv, task: 'do_compile', setscene: false, taint: true },
      {
        file: `${pv}.do_deploy_setscene.${H}.qemux86_64`,
        pv,
        task: 'do_deploy',
        setscene: true,
        hash: H,
        extra: 'qemux86_64',
      },
      {
        file: `${pv}.do_package_write_ipk_setscene.${H}`,
        pv,
        task: 'do_package_write_ipk',
        setscene: true,
        hash: H,
      },
      { file: `${pv}.do_unpack`, pv, task: 'do_unpack', setscene: false },
    ]);
  });

  it('uses a known PV even when it contains ".do_"', () => {
    expect(parseStampName(`1.0.do_it.do_fetch.${H}`, '1.0.do_it')).toEqual({
      pv: '1.0.do_it',
      task: 'do_fetch',
      setscene: false,
      hash: H,
    });
    expect(parseStampName('1.0.fetched')).toBeUndefined();
  });
});

describe('sstate-control', () => {
  const dir = join(fixtures, 'sstate-control-index');
  const T = '/home/u/build/tmp';

  it('maps STAMP to WORKDIR, later lines winning, bad lines listed', () => {
    const index = parseSstateIndex(
      `${T}/stamps/a/zlib/1.3.1 ${T}/sstate-control/manifest-a-zlib ${T}/work/a/zlib/1.3.1\nbroken line\n` +
        `${T}/stamps/a/zlib/1.3.1 ${T}/sstate-control/manifest-a-zlib ${T}/work2/a/zlib/1.3.1\n`,
    );
    expect(index.skipped).toEqual(['broken line']);
    expect([...stampToWorkdir(index.entries)]).toEqual([
      [`${T}/stamps/a/zlib/1.3.1`, `${T}/work2/a/zlib/1.3.1`],
    ]);
  });

  it('splits manifest names by the known architectures', () => {
    expect(parseManifestName('manifest-core2-64-zlib.populate_sysroot', ['core2', 'core2-64'])).toEqual({
      arch: 'core2-64',
      pn: 'zlib',
      task: 'populate_sysroot',
    });
    expect(parseManifestName('manifest-x86_64-m4-native.populate_sysroot')).toEqual({
      arch: 'x86_64',
      pn: 'm4-native',
      task: 'populate_sysroot',
    });
    expect(parseManifestName('index-x86_64')).toBeUndefined();
  });

  it('reads the folder: every index and manifest', async () => {
    const control = await readSstateControl(dir);
    expect([...control.indexes.keys()]).toEqual(['core2-64', 'x86_64']);
    expect(control.indexes.get('core2-64')?.entries).toHaveLength(3);
    expect(control.indexes.get('x86_64')).toEqual({
      entries: [
        {
          stamp: `${T}/stamps/x86_64-linux/m4-native/1.4.19`,
          manifestPrefix: `${T}/sstate-control/manifest-x86_64-m4-native`,
          workdir: `${T}/work/x86_64-linux/m4-native/1.4.19`,
        },
      ],
      skipped: ['broken line'],
    });
    expect(control.manifests.map((m) => [m.arch, m.pn, m.task])).toEqual([
      ['core2-64', 'busybox', 'packagedata'],
      ['core2-64', 'zlib', 'package_write_ipk'],
      ['core2-64', 'zlib', 'populate_sysroot'],
      ['x86_64', 'm4-native', 'populate_sysroot'],
    ]);
  });
});
