import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  findNewestAllVariables,
  findNewestEventLog,
  parseAllVariablesLine,
  readAllVariables,
} from '../../src/bitbake/eventlog.js';
import { readLines } from '../../src/bitbake/lines.js';

const fixtures = fileURLToPath(new URL('../fixtures/records/', import.meta.url));
const good = join(fixtures, 'eventlog-allvariables-line-48');

describe('event log', () => {
  let dir = '';
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds the newest log by name, in LOG_DIR or its eventlog/ folder', async () => {
    expect(await findNewestEventLog(good)).toBe(join(good, '20251130142627.json'));
    dir = mkdtempSync(join(tmpdir(), 'rambake-eventlog-'));
    expect(await findNewestEventLog(dir)).toBeUndefined();
    const sub = join(dir, 'eventlog');
    writeFileSync(join(dir, 'x.json'), '');
    mkdirSync(sub);
    writeFileSync(join(sub, '20250101000000.json'), '');
    writeFileSync(join(sub, '20251231000000.json'), '');
    expect(await findNewestEventLog(dir)).toBe(join(sub, '20251231000000.json'));
  });

  it('reads allvariables from line 48 and stops there, despite a torn last line', async () => {
    const file = join(good, '20251130142627.json');
    let at = 0;
    await readLines(file, (line, no) => {
      if (line.startsWith('{"allvariables"')) at = no;
    });
    expect(at).toBe(48);
    expect(await readAllVariables(file)).toEqual({
      TMPDIR: {
        v: '/home/u/build/tmp',
        history: [
          {
            variable: 'TMPDIR',
            file: '/home/u/poky/meta/conf/bitbake.conf',
            line: 387,
            op: 'set?',
            detail: '${TOPDIR}/tmp',
          },
        ],
      },
      MACHINE: { v: 'qemux86-64', history: [] },
      BB_NUMBER_THREADS: { v: '16' },
      INHERIT: { v: ' poky-sanity rm_work' },
    });
  });

  it('gives undefined for a log without the line, a torn line, or no file', async () => {
    expect(await readAllVariables(join(good, '20251129080000.json'))).toBeUndefined();
    expect(await readAllVariables(join(fixtures, 'eventlog-torn', '20251130142627.json'))).toBeUndefined();
    expect(await readAllVariables(join(fixtures, 'eventlog-torn', 'missing.json'))).toBeUndefined();
    expect(parseAllVariablesLine('{"allvariables": []}')).toBeUndefined();
  });
});

describe('event log: variables with flags only', () => {
  it('reads "None" as undefined unless the history assigns the text None', () => {
    const line = JSON.stringify({
      allvariables: {
        SSTATE_MIRRORS: {
          v: 'None',
          history: [{ variable: 'SSTATE_MIRRORS', op: 'set', flag: 'doc', detail: 'Configures…' }],
          doc: 'Configures…',
          func: null,
        },
        ODD: { v: 'None', history: [{ variable: 'ODD', op: 'set', detail: 'None' }], doc: null, func: null },
        TMPDIR: { v: '/t', history: [] },
      },
    });
    expect(parseAllVariablesLine(line)).toEqual({
      SSTATE_MIRRORS: {
        v: undefined,
        history: [{ variable: 'SSTATE_MIRRORS', op: 'set', flag: 'doc', detail: 'Configures…' }],
      },
      ODD: { v: 'None', history: [{ variable: 'ODD', op: 'set', detail: 'None' }] },
      TMPDIR: { v: '/t', history: [] },
    });
  });
});

describe('event log: a build with BB_HASHSERVE = "auto" (fixture eventlog-none-hashserve-auto)', () => {
  const dir = join(fixtures, 'eventlog-none-hashserve-auto');

  it("passes over a newer log without the allvariables line, to the build's log", async () => {
    expect(await findNewestEventLog(dir)).toBe(join(dir, '20251201130000.json'));
    const found = await findNewestAllVariables(dir);
    expect(found?.path).toBe(join(dir, '20251201120000.json'));
    // Reading only the newest log finds nothing.
    expect(await findNewestAllVariables(dir, 1)).toBeUndefined();
  });

  it('reads "None" of a flags-only variable as undefined, and the socket BitBake started', async () => {
    const found = await findNewestAllVariables(dir);
    expect(found?.vars.SSTATE_MIRRORS?.v).toBeUndefined();
    expect(found?.vars.BB_HASHSERVE?.v).toBe('unix:///home/u/build/hashserve.sock');
    expect(found?.vars.TMPDIR?.v).toBe('/home/u/build/tmp');
  });
});
