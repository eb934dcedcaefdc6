// `rambake churn` and `rambake space` as a user runs them: the built binary, a scrubbed env.
// (`npm test` builds dist/ first.)

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { runRambake } from '../helpers/exec.js';
import { buildWithFixture } from './helpers.js';

const cleanups = cleanupsAfterEach();

function fixture(name: string) {
  const ex = buildWithFixture(name);
  cleanups.push(ex.cleanup);
  return ex;
}

describe('rambake churn', () => {
  it('exits 1 on recurring churn, with JSON alone on stdout', async () => {
    const ex = fixture('redundant-package-setscene');
    const r = await runRambake(['churn', '--json', '--no-bitbake', '-B', ex.topdir]);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.schemaVersion).toBe(1);
    expect(j.recurring).toMatchObject([{ pn: 'zlib', builds: ['20251130110000', '20251130120000'] }]);
    expect(j.builds[1]).toMatchObject({ name: '20251130110000', sstate: { wanted: 3 } });
    expect(j.builds[1].redundant[0]).toMatchObject({ pf: 'zlib-1.3.1-r0', elapsed: 2.4, wchar: 9437184 });
  });

  it('exits 0 when restores were used, and prints aligned tables', async () => {
    const ex = fixture('legitimate-restore');
    const r = await runRambake(['churn', '--no-bitbake', '-B', ex.topdir]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^ {4}zlib-1\.3\.1-r0 +2\.4s +9\.00 MiB +ran +- +do_package_qa$/m);
  });

  it('reads a running build with torn records without a stack trace', async () => {
    const ex = fixture('running-build-torn-records');
    const r = await runRambake(['churn', '--no-bitbake', '-B', ex.topdir]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).not.toMatch(/at .+\.js:\d+/);
    expect(r.stdout).toContain('Skipped (5)');
    expect(r.stdout).toContain('no Tasks Summary: the build is running or was stopped');
  });

  it('refuses a --builds that is not a whole number (exit 2)', async () => {
    const ex = fixture('legitimate-restore');
    const r = await runRambake(['churn', '--builds', 'many', '--no-bitbake', '-B', ex.topdir]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--builds.*'many' is invalid. expected a whole number, 1 or more/);
  });
});

describe('rambake space', () => {
  it('saves a scan and compares with it; a bad saved file is a usage error', async () => {
    const ex = fixture('redundant-package-setscene');
    const saved = join(ex.root, 'scan.json');
    const first = await runRambake(['space', '--json', '--no-bitbake', '-B', ex.topdir, '--save', saved]);
    expect(first.exitCode).toBe(0);
    const j = JSON.parse(first.stdout);
    expect(j.recipes).toMatchObject([{ pn: 'zlib', pv: '1.3.1', arch: 'core2-64-poky-linux' }]);
    const second = await runRambake(['space', 'zlib', '--no-bitbake', '-B', ex.topdir, '--compare', saved]);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain('no recipe changed size');
    writeFileSync(join(ex.root, 'bad.json'), '{"schemaVersion": 9}');
    const bad = await runRambake([
      'space',
      '--no-bitbake',
      '-B',
      ex.topdir,
      '--compare',
      join(ex.root, 'bad.json'),
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('not a scan saved by rambake space --save');
  });
});
