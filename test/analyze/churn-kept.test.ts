// churn on a RAM build: apply's block sends buildstats (BUILDSTATS_BASE:forcevariable) and console
// logs (BB_CONSOLELOG) to rambake-keep/, while LOG_DIR stays on the tmpfs with no console log.
// churn pairs each build with its console log there, during the RAM build and after revert
// (when BUILDSTATS_BASE is back in TMPDIR and the builds are only in rambake-keep). Real tmpfs
// mounts, so root only.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyExample } from '../helpers/exec.js';
import { buildEnv, rambake, runBuild } from '../watch/helpers.js';

const isRoot = process.getuid?.() === 0;
if (!isRoot) console.log('churn-kept test skipped: not root (it mounts a real tmpfs)');

interface ChurnJson {
  builds: { name: string; consoleLog: string | null }[];
}

describe.skipIf(!isRoot)('churn reads what a RAM build kept in rambake-keep/', () => {
  it('pairs the builds with their console logs during the RAM build and after revert', {
    timeout: 300_000,
  }, async () => {
    const ex = copyExample();
    const env = buildEnv('small');
    try {
      const applied = await rambake(
        ['apply', '--path', join(ex.topdir, 'ram'), '--size', '1g'],
        ex.topdir,
        env,
      );
      expect(applied.exitCode, applied.stderr).toBe(0);
      for (let i = 0; i < 2; i++) expect((await runBuild(ex.topdir, 'small')).exitCode).toBe(0);
      const keptLogs = join(ex.topdir, 'rambake-keep', 'log', 'cooker');
      const churn = async () => {
        const r = await rambake(['churn', '--json'], ex.topdir, env);
        expect(r.exitCode, r.stderr).toBe(0);
        return JSON.parse(r.stdout) as ChurnJson;
      };
      const during = await churn();
      expect(during.builds).toHaveLength(2);
      for (const b of during.builds) expect(b.consoleLog?.startsWith(keptLogs), JSON.stringify(b)).toBe(true);

      expect((await rambake(['revert'], ex.topdir, env)).exitCode).toBe(0);
      const after = await churn();
      expect(after.builds.map((b) => [b.name, b.consoleLog])).toEqual(
        during.builds.map((b) => [b.name, b.consoleLog]),
      );
    } finally {
      await rambake(['revert', '--force'], ex.topdir, env);
      ex.cleanup();
    }
  });
});
