import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  countInotifyLines,
  countInotifyWatches,
  parseInotifyLimit,
  readInotifyLimits,
} from '../../src/system/inotify.js';
import { fixture } from './fixture.js';

describe('inotify parsers', () => {
  it('reads a limit file', () => {
    expect(parseInotifyLimit('8192\n')).toBe(8192);
    expect(() => parseInotifyLimit('lots\n', 'max_user_watches')).toThrow('max_user_watches');
  });

  it('counts watch lines in fdinfo', () => {
    expect(countInotifyLines(fixture('fdinfo-inotify-3-watches'))).toBe(3);
    expect(countInotifyLines('pos:\t0\nflags:\t02\n')).toBe(0);
  });
});

describe.runIf(process.platform === 'linux')('inotify on this host', () => {
  it('reads both limits', async () => {
    const limits = await readInotifyLimits();
    expect(limits.maxUserWatches).toBeGreaterThan(0);
    expect(limits.maxUserInstances).toBeGreaterThan(0);
  });

  it('sees one more watch per watched folder of this process', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rambake-inotify-'));
    const before = await countInotifyWatches();
    const watchers = ['a', 'b'].map((name) => {
      fs.mkdirSync(path.join(dir, name));
      return fs.watch(path.join(dir, name));
    });
    try {
      expect(await countInotifyWatches()).toBe(before + 2);
    } finally {
      for (const w of watchers) w.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
