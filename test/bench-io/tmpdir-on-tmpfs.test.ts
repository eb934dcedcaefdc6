// bench-io on a build whose TMPDIR is already a tmpfs of its own (a real mount): it measures
// that kind of tmpfs against the disk TMPDIR would be on without it (beside the kept outputs),
// says what the tmpfs saves now (never "would save"), keeps that in the saved record, and plan
// quotes it the same way. Nothing is written under TMPDIR. Mounting needs root.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makePlan } from '../../src/plan/sizing.js';
import { renderBenchIo } from '../../src/report/bench-io.js';
import { readBenchIoResult } from '../../src/system/bench-io-record.js';
import { makeColors } from '../../src/text/format.js';
import { runBenchIo } from '../../src/usecases/bench-io.js';
import { copyExample } from '../helpers/exec.js';

const isRoot = process.getuid?.() === 0;
const TMPFS = 0x01021994;

describe('bench-io with TMPDIR already on a tmpfs', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  // Not root: no mount, so this case is skipped (the disk case runs in bench-io.test.ts).
  it.skipIf(!isRoot)(
    'compares with the disk beside the kept outputs and says what the tmpfs saves now',
    async () => {
      const ex = copyExample();
      const tmp = path.join(ex.topdir, 'tmp');
      fs.mkdirSync(tmp);
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,mode=755', 'rambake-test-tmpdir', tmp]);
      cleanup = () => {
        execFileSync('umount', [tmp]);
        ex.cleanup();
      };
      const load = { buildDir: ex.topdir, env: {}, sources: { getvar: false, eventlog: false } };
      const r = await runBenchIo(load, { seconds: 1, files: 30 });

      expect(r.tmpdirOnTmpfs).toBe(true);
      const diskDir = path.dirname(r.disk.path);
      expect(r.disk.fsType).not.toBe('tmpfs');
      expect(fs.statfsSync(diskDir).type).not.toBe(TMPFS);
      expect(diskDir.startsWith(`${tmp}/`) || diskDir === tmp).toBe(false);
      // The example keeps SSTATE_DIR at ${TOPDIR}/../sstate-cache: its folder is the disk side.
      expect(diskDir).toBe(ex.root);
      expect(r.notes.join('\n')).toContain(`TMPDIR (${tmp}) is already on a tmpfs (${tmp})`);
      expect(r.tmpfs?.fsType).toBe('tmpfs');
      expect(fs.readdirSync(tmp)).toEqual([]);

      const text = renderBenchIo(r, makeColors(false)).join('\n');
      expect(text).toMatch(
        /TMPDIR is already on a tmpfs: it saves about \d+% of file-system time against the disk at \S+ \(\w+\), where TMPDIR would be without it/,
      );
      expect(text).toContain(`against the disk at ${ex.root} (${r.disk.fsType})`);
      expect(text).not.toMatch(/would save/);

      const saved = await readBenchIoResult(ex.topdir);
      expect(saved?.tmpdirOnTmpfs).toBe(true);
      const io = (await makePlan(load, {})).reasons.find((x) => x.topic === 'io');
      expect(io?.text).toMatch(/TMPDIR is already on a tmpfs: it saves about \d+% of file-system time/);
      expect(io?.text).not.toMatch(/would save/);
    },
  );
});
