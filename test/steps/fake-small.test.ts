// `rambake steps` on the fake BitBake's `small` scenario, graph from a real `bitbake -g` run.

import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { registerSteps } from '../../src/cli/steps.js';
import { proposeSteps } from '../../src/plan/steps.js';
import { copyExample, FAKE_BIN, runRambake } from '../helpers/exec.js';

const envFor = (topdir: string) => ({
  PATH: `${FAKE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  FAKE_BITBAKE_SCENARIO: 'small',
  BUILDDIR: topdir,
});

describe('steps on the fake small build', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('without history: the cross compiler, then the kernel that needs it; bitbake -g leaves nothing behind', async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const before = fs.readdirSync(ex.topdir).sort();
    const p = await proposeSteps(
      { buildDir: ex.topdir, env: envFor(ex.topdir), sources: { getvar: false, eventlog: false } },
      ['core-image-minimal'],
    );
    expect(p.graph).toBe('task-depends.dot');
    expect(p.steps).toEqual(['gcc-cross-x86_64', 'linux-yocto']);
    expect(p.reasons.every((r) => /known giant/.test(r.text))).toBe(true);
    expect(fs.readdirSync(ex.topdir).sort()).toEqual(before);
    expect(fs.existsSync(path.join(ex.topdir, 'tmp'))).toBe(false);
  });

  it('without bitbake, a run or buildstats: no graph, so no answer: one line naming the target and what to do, exit 2', async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const load = {
      buildDir: ex.topdir,
      env: { PATH: '/nonexistent', BUILDDIR: ex.topdir },
      sources: { getvar: false, eventlog: false },
    };
    await expect(proposeSteps(load, ['core-image-minimal'])).rejects.toThrow(
      /^no task graph for core-image-minimal \(bitbake is not on PATH; no recorded run, no buildstats\): with bitbake on PATH .*rambake run -- bitbake core-image-minimal$/,
    );
    const r = await runRambake(['-B', ex.topdir, 'steps', 'core-image-minimal'], {
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^rambake: no task graph for core-image-minimal .*bitbake on PATH/);
    expect(r.stderr).not.toMatch(/no step needed/);
  });

  it('prints the JSON shape {schemaVersion, target, steps, reasons}', async () => {
    const ex = copyExample();
    cleanup = ex.cleanup;
    const saved = { ...process.env };
    Object.assign(process.env, envFor(ex.topdir));
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => chunks.push(s) > 0) as typeof process.stdout.write;
    try {
      const program = new Command('rambake')
        .option('--json')
        .option('-B, --build-dir <dir>')
        .option('--no-bitbake');
      registerSteps(program);
      await program.parseAsync([
        'node',
        'rambake',
        '--json',
        '--no-bitbake',
        '-B',
        ex.topdir,
        'steps',
        'core-image-minimal',
      ]);
    } finally {
      process.stdout.write = write;
      process.env = saved;
    }
    const doc = JSON.parse(chunks.join('')) as Record<string, unknown>;
    expect(doc).toMatchObject({
      schemaVersion: 1,
      target: 'core-image-minimal',
      steps: ['gcc-cross-x86_64', 'linux-yocto'],
    });
    expect(Array.isArray(doc.reasons)).toBe(true);
  });
});
