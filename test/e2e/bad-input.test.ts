// Every malformed conf gets one line `rambake: <file>:<line>: <what> (expected …)` and exit 2.

import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();

/** local.conf of the sample has 40 lines: appended text starts at line 41. */
const cases: { name: string; local?: string; edit?: (topdir: string) => void; where: RegExp }[] = [
  { name: 'unquoted value', local: 'MACHINE = qemux86-64\n', where: /conf\/local\.conf:41: / },
  { name: 'trailing comment', local: 'MACHINE = "qemux86-64" # mine\n', where: /conf\/local\.conf:41: / },
  { name: 'indented comment', local: '  # indented\n', where: /conf\/local\.conf:41: / },
  {
    name: 'comment continued into a line',
    local: '# a comment \\\nMACHINE = "x"\n',
    where: /conf\/local\.conf:41: /,
  },
  { name: 'old _append name', local: 'IMAGE_INSTALL_append = " x"\n', where: /conf\/local\.conf:41: / },
  { name: 'inherit in a conf file', local: 'inherit rm_work\n', where: /conf\/local\.conf:41: / },
  { name: 'missing require', local: 'require conf/nowhere.inc\n', where: /conf\/local\.conf:41: / },
  {
    name: 'include cycle',
    edit: (top) => {
      writeFileSync(join(top, 'conf', 'a.inc'), 'include conf/b.inc\n');
      writeFileSync(join(top, 'conf', 'b.inc'), 'include conf/a.inc\n');
      appendFileSync(join(top, 'conf', 'local.conf'), 'include conf/a.inc\n');
    },
    where: /conf\/(a|b)\.inc:1: /,
  },
  {
    name: 'binary garbage',
    edit: (top) =>
      writeFileSync(join(top, 'conf', 'auto.conf'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff, 10])),
    where: /conf\/auto\.conf(:1)?: /,
  },
  {
    name: 'a 10 MB single line',
    edit: (top) => writeFileSync(join(top, 'conf', 'auto.conf'), `X = "${'a'.repeat(10 * 2 ** 20)}\n`),
    where: /conf\/auto\.conf:1: /,
  },
  {
    name: 'unreadable file (a folder where a file should be)',
    edit: (top) => mkdirSync(join(top, 'conf', 'nowhere.conf')),
    local: 'require conf/nowhere.conf\n',
    where: /nowhere\.conf/,
  },
  {
    name: 'a BBLAYERS entry that does not exist',
    edit: (top) =>
      appendFileSync(join(top, 'conf', 'bblayers.conf'), 'BBLAYERS += "${TOPDIR}/../layers/meta-gone"\n'),
    where: /conf\/bblayers\.conf:\d+: .*meta-gone/,
  },
];

describe('bad conf input', () => {
  for (const c of cases) {
    it(`${c.name}: one line naming file and line, exit 2`, async () => {
      const ex = copyExample();
      cleanups.push(ex.cleanup);
      c.edit?.(ex.topdir);
      if (c.local) appendFileSync(join(ex.topdir, 'conf', 'local.conf'), c.local);
      const r = await runRambake(['status', '-B', ex.topdir]);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^rambake: /);
      expect(lines[0]).toMatch(c.where);
      expect(lines[0]!.length).toBeLessThan(1000);
    });
  }

  it('accepts CRLF line endings, as BitBake does', async () => {
    const ex = copyExample();
    cleanups.push(ex.cleanup);
    writeFileSync(join(ex.topdir, 'conf', 'auto.conf'), 'MACHINE = "crlf-machine"\r\nDISTRO = "crlf"\r\n');
    const r = await runRambake(['status', '--json', '-B', ex.topdir]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).vars.MACHINE.value).toBe('crlf-machine'); // auto.conf is read before local.conf's ??=
  });
});
