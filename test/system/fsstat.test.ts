import os from 'node:os';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { isTmpfs, statFs, statFsSync, TMPFS_MAGIC, toFsStat } from '../../src/system/fsstat.js';

describe('toFsStat', () => {
  it('counts free space as BitBake does: bavail × block size', () => {
    const stat = toFsStat({
      type: TMPFS_MAGIC,
      bsize: 4096,
      blocks: 1000,
      bfree: 300,
      bavail: 250,
      files: 500,
      ffree: 20,
    });
    expect(stat).toEqual({
      totalBytes: 4096000,
      freeBytes: 1024000,
      availBytes: 1024000,
      freeBytesForRoot: 1228800,
      usedBytes: 2867200,
      totalInodes: 500,
      freeInodes: 20,
      blockSize: 4096,
      fsType: TMPFS_MAGIC,
    });
    expect(isTmpfs(stat)).toBe(true);
  });
});

describe.runIf(process.platform === 'linux')('statFs', () => {
  it('agrees with df on size and inode count', async () => {
    const dir = os.tmpdir();
    const { stdout } = await execa('df', ['-B1', '--output=size,itotal', dir]);
    const [size, itotal] = stdout.trim().split('\n')[1]!.trim().split(/\s+/).map(Number);
    const stat = await statFs(dir);
    expect(stat.totalBytes).toBe(size);
    expect(stat.totalInodes).toBe(itotal);
    expect(statFsSync(dir).totalBytes).toBe(size);
    expect(stat.freeBytes).toBeLessThanOrEqual(stat.freeBytesForRoot);
  });

  it('rejects a missing path', async () => {
    await expect(statFs('/no/such/rambake/path')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
