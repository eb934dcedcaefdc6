// The line `rambake run` prints when a build failed with its tmpfs full, and only then.

import { describe, expect, it } from 'vitest';
import { renderFullTmpfs } from '../../src/report/run-verdict.js';

const MiB = 1024 * 1024;
const tmpfs = { totalBytes: 57 * MiB, totalInodes: 409_600 };
const command = ['bitbake', 'core-image-sato'];

describe('the full-tmpfs verdict of a run', () => {
  it('a failed one-go build at the disk monitor margin: build in steps, with the command', () => {
    const line = renderFullTmpfs({
      exitCode: 1,
      peak: { bytes: 53 * MiB, inodes: 22_000 },
      tmpfs,
      command,
      stepped: false,
    });
    expect(line).toBe(
      'rambake: the build failed with the tmpfs full: TMPDIR peaked at 53.0 MiB of its 57.0 MiB tmpfs; in one go it does not fit. Build the giants first, one at a time: rambake run --steps auto -- bitbake core-image-sato (rambake steps says which), or mount a larger tmpfs (rambake plan)',
    );
  });

  it('a failed stepped build: more room, not more steps', () => {
    const line = renderFullTmpfs({
      exitCode: 1,
      peak: { bytes: 57 * MiB, inodes: 22_000 },
      tmpfs,
      command,
      stepped: true,
    });
    expect(line).toMatch(/even in steps it does not fit: mount a larger tmpfs/);
  });

  it('inodes can fill it too', () => {
    const line = renderFullTmpfs({
      exitCode: 1,
      peak: { bytes: MiB, inodes: 400_000 },
      tmpfs,
      command,
      stepped: false,
    });
    expect(line).toMatch(/TMPDIR used 400000 of its tmpfs's 409600 inodes/);
  });

  it('says nothing of a build that passed, failed with room left, or ran on a disk', () => {
    const peak = { bytes: 56 * MiB, inodes: 1000 };
    expect(renderFullTmpfs({ exitCode: 0, peak, tmpfs, command, stepped: false })).toBeUndefined();
    expect(
      renderFullTmpfs({
        exitCode: 1,
        peak: { bytes: 40 * MiB, inodes: 1000 },
        tmpfs,
        command,
        stepped: false,
      }),
    ).toBeUndefined();
    expect(renderFullTmpfs({ exitCode: 1, peak, command, stepped: false })).toBeUndefined();
  });
});
