import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { bbDefaultThreads, parseCpuList, parseCpusAllowed, readCpus } from '../../src/system/cpus.js';
import { fixture } from './fixture.js';

describe('CPU lists', () => {
  it('expands ranges, single CPUs and strides', () => {
    expect(parseCpuList('0-3,8-11')).toEqual([0, 1, 2, 3, 8, 9, 10, 11]);
    expect(parseCpuList('5')).toEqual([5]);
    expect(parseCpuList('0-7:2')).toEqual([0, 2, 4, 6]);
    expect(parseCpuList('\n')).toEqual([]);
  });

  it('rejects a malformed list', () => {
    expect(() => parseCpuList('0-3,x')).toThrow('bad CPU list');
  });

  it('counts Cpus_allowed_list in /proc/<pid>/status', () => {
    expect(parseCpusAllowed(fixture('proc-status-affinity'))).toBe(8);
    expect(parseCpusAllowed('Name:\tx\n')).toBeUndefined();
  });

  it('caps the BitBake default at 64', () => {
    expect(bbDefaultThreads(8)).toBe(8);
    expect(bbDefaultThreads(64)).toBe(64);
    expect(bbDefaultThreads(192)).toBe(64);
  });

  it.runIf(process.platform === 'linux')('agrees with the affinity mask of this process', async () => {
    const cpus = await readCpus();
    expect(cpus.usable).toBe(os.availableParallelism());
    expect(cpus.allowedByStatus).toBe(cpus.usable);
    expect(cpus.bbDefault).toBe(Math.min(cpus.usable, 64));
    expect(cpus.online).toBeGreaterThanOrEqual(cpus.usable);
  });
});
