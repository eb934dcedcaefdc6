import { describe, expect, it } from 'vitest';
import { RambakeError } from '../../src/errors.js';
import { parseMeminfo } from '../../src/system/meminfo.js';
import { fixture } from './fixture.js';

describe('parseMeminfo', () => {
  it('turns kB (KiB) into bytes', () => {
    const info = parseMeminfo(fixture('meminfo-16g-swap'));
    expect(info.memTotal).toBe(16318412 * 1024);
    expect(info.memAvailable).toBe(9871232 * 1024);
    expect(info.memFree).toBe(1183700 * 1024);
    expect(info.swapTotal).toBe(8388604 * 1024);
    expect(info.swapFree).toBe(8121340 * 1024);
    expect(info.shmem).toBe(812660 * 1024);
    expect(info.availableEstimated).toBe(false);
  });

  it('keeps counts without a unit and keys with parentheses', () => {
    const info = parseMeminfo(fixture('meminfo-16g-swap'));
    expect(info.all.HugePages_Total).toBe(0);
    expect(info.all['Active(anon)']).toBe(4511076 * 1024);
    expect(info.all.VmallocTotal).toBe(34359738367 * 1024);
  });

  it('estimates MemAvailable on kernels that lack it', () => {
    const info = parseMeminfo(fixture('meminfo-old-kernel-no-available'));
    expect(info.availableEstimated).toBe(true);
    expect(info.memAvailable).toBe((210440 + 101224 + 1740012) * 1024);
    expect(info.swapTotal).toBe(0);
  });

  it('refuses text without MemTotal, naming the file', () => {
    expect(() => parseMeminfo('hello\n', '/x/meminfo')).toThrow(RambakeError);
    expect(() => parseMeminfo('MemFree: 1 kB\n', '/x/meminfo')).toThrow('/x/meminfo: no MemTotal line');
  });
});
