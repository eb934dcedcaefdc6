// `rambake bench-io` through the built binary.

import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { runRambake, tempDir } from '../helpers/exec.js';

describe('rambake bench-io (e2e)', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('--json --seconds 1 --dir gives {schemaVersion, disk, tmpfs, speedup} and cleans its folder', async () => {
    const dir = tempDir('rambake-bench-io-e2e-');
    cleanup = dir.cleanup;
    const r = await runRambake(['bench-io', '--json', '--seconds', '1', '--dir', dir.path], {
      cwd: dir.path,
    });
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc.schemaVersion).toBe(1);
    expect(doc.disk).toMatchObject({ kind: 'dir' });
    if (doc.tmpfs) expect(doc.speedup).toBeDefined();
    else expect(String(doc.notes)).toMatch(/no tmpfs available/);
    expect(fs.readdirSync(dir.path)).toEqual([]);
  });

  it('refuses a --seconds that is not a positive number (exit 2)', async () => {
    const r = await runRambake(['bench-io', '--seconds', 'soon']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--seconds/);
  });
});
