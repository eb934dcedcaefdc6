import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerApply } from '../../src/cli/apply.js';
import { OPTIONS } from '../../src/cli/options.js';
import { registerRevert } from '../../src/cli/revert.js';
import { renderApply, renderRevert } from '../../src/report/apply.js';
import { copyExample, runRambake } from '../helpers/exec.js';

/** The commands as program.ts wires them, run in this process; stdout captured. */
async function run(args: string[]): Promise<string> {
  const program = new Command('rambake').exitOverride();
  for (const spec of OPTIONS.filter((o) => o.scope === 'global')) {
    program.addOption(new Option(spec.flags, spec.description));
  }
  registerApply(program);
  registerRevert(program);
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await program.parseAsync(['node', 'rambake', ...args]);
  } finally {
    spy.mockRestore();
  }
  return out;
}

let ex: ReturnType<typeof copyExample>;
/** `apply` into local.conf with a tmpfs path beside the build, as JSON. */
const applyLocalJson = () => [
  '-B',
  ex.topdir,
  '--no-bitbake',
  '--json',
  'apply',
  '--conf',
  'local',
  '--path',
  join(ex.root, 'ram'),
  // The size is the user's choice: apply does not refuse the published-figures plan.
  '--size',
  '1g',
];
beforeEach(() => {
  ex = copyExample();
});
afterEach(() => ex.cleanup());

describe('rambake apply / revert commands', () => {
  it('apply --dry-run --json prints one JSON report and writes nothing', async () => {
    const out = await run([
      '-B',
      ex.topdir,
      '--no-bitbake',
      '--json',
      'apply',
      '--dry-run',
      '--conf',
      'local',
    ]);
    const report = JSON.parse(out);
    expect(report).toMatchObject({
      schemaVersion: 1,
      dryRun: true,
      conf: { choice: 'local', changed: true },
    });
    expect(report.conf.diff).toContain(`+TMPDIR = "${join(ex.topdir, 'tmp-ram')}"`);
    expect(report.mount.commands[0]).toMatch(/^(sudo )?mount -t tmpfs -o size=/);
    expect(existsSync(join(ex.topdir, 'rambake', 'state.json'))).toBe(false);
  });

  it('apply --conf kas prints the kas entry', async () => {
    const out = await run(['-B', ex.topdir, '--no-bitbake', 'apply', '--dry-run', '--conf', 'kas']);
    expect(out).toContain('local_conf_header:\n  rambake: |\n');
  });

  it('refuses an unknown --conf', async () => {
    await expect(run(['-B', ex.topdir, 'apply', '--conf', 'bblayers'])).rejects.toThrow(
      /--conf.*bblayers.*choices are auto, local, site, kas/,
    );
  });

  it('apply twice leaves the conf file as the first apply wrote it; revert restores it', async () => {
    const local = join(ex.topdir, 'conf', 'local.conf');
    const original = readFileSync(local);
    const args = applyLocalJson();
    expect(JSON.parse(await run(args)).conf.changed).toBe(true);
    const once = readFileSync(local);
    expect(once.toString()).toContain('INHERIT += "rm_work"');
    expect(JSON.parse(await run(args)).conf.changed).toBe(false);
    expect(readFileSync(local).equals(once)).toBe(true);
    await run(['-B', ex.topdir, '--json', 'revert']);
    expect(readFileSync(local).equals(original)).toBe(true);
  });

  it('revert with nothing applied says so and changes nothing', async () => {
    const local = readFileSync(join(ex.topdir, 'conf', 'local.conf'));
    const out = await run(['-B', ex.topdir, '--json', 'revert']);
    expect(JSON.parse(out)).toMatchObject({ hadState: false });
    expect(readFileSync(join(ex.topdir, 'conf', 'local.conf')).equals(local)).toBe(true);
  });
});

describe('text rendering', () => {
  it('renders an apply that printed commands for a non-root user', () => {
    const lines = renderApply({
      schemaVersion: 1,
      dryRun: false,
      scope: 'tmpdir',
      conf: { choice: 'auto', file: '/b/conf/auto.conf', creates: false, changed: false, diff: '' },
      mount: {
        path: '/b/tmp-ram',
        source: 'rambake-1',
        options: ['size=8g'],
        status: 'commands',
        commands: ['sudo mount -t tmpfs -o size=8g rambake-1 /b/tmp-ram'],
        fstab: 'rambake-1 /b/tmp-ram tmpfs size=8g 0 0',
        createdFolder: false,
      },
      effect: {
        forced: [{ planned: 'TMPDIR = "/b/tmp-ram"', written: 'TMPDIR:forcevariable = "/b/tmp-ram"' }],
        vars: [
          { name: 'TMPDIR', value: '/b/tmp-ram', ok: true },
          { name: 'INHERIT', value: 'rm_work', ok: true },
        ],
        bitbake: { confirmed: false, reason: 'the tmpfs is not mounted yet' },
      },
      statePath: '/b/rambake/state.json',
      notes: ['not root: run the commands above'],
    });
    expect(lines).toEqual([
      '/b/conf/auto.conf: unchanged (the managed block is up to date)',
      'run as root:',
      '  sudo mount -t tmpfs -o size=8g rambake-1 /b/tmp-ram',
      '',
      'or mount it at boot, with this /etc/fstab line:',
      '  rambake-1 /b/tmp-ram tmpfs size=8g 0 0',
      '',
      "in effect (rambake's reading of the conf files):",
      '  ok  TMPDIR   /b/tmp-ram',
      '  ok  INHERIT  rm_work',
      'not confirmed by BitBake: the tmpfs is not mounted yet',
      'note: not root: run the commands above',
      'undo with: rambake revert (state in /b/rambake/state.json)',
    ]);
  });

  it('renders a revert that left the old TMPDIR on disk', () => {
    const lines = renderRevert({
      schemaVersion: 1,
      hadState: true,
      conf: { file: '/b/conf/auto.conf', changed: true, deleted: true, diff: '' },
      mount: {
        path: '/b/tmp-ram',
        source: 'rambake-1',
        status: 'unmounted',
        commands: [],
        folderRemoved: true,
      },
      leftOnDisk: { path: '/b/tmp', bytes: 3 * 2 ** 30 },
      kept: [],
      notes: [],
    });
    expect(lines[0]).toBe('/b/conf/auto.conf: removed (rambake had created it)');
    expect(lines[1]).toBe('unmounted rambake-1 from /b/tmp-ram and removed the folder');
    expect(lines[2]).toMatch(
      /^the TMPDIR from before apply is still on disk: \/b\/tmp \(3(\.0+)? GiB\), not removed$/,
    );
  });
});

// These spawn the built binary (`npm test` builds it first).
describe('rambake apply / revert end to end', () => {
  it('apply then revert leaves local.conf byte-identical', async () => {
    const local = readFileSync(join(ex.topdir, 'conf', 'local.conf'));
    const applied = await runRambake(applyLocalJson());
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(JSON.parse(applied.stdout).conf.changed).toBe(true);
    const again = await runRambake(applyLocalJson());
    expect(JSON.parse(again.stdout).conf.changed).toBe(false);
    const reverted = await runRambake(['-B', ex.topdir, '--json', 'revert']);
    expect(reverted.exitCode, reverted.stderr).toBe(0);
    expect(readFileSync(join(ex.topdir, 'conf', 'local.conf')).equals(local)).toBe(true);
  });

  it('exits 1 with one line when the block was edited by hand', async () => {
    await runRambake([
      '-B',
      ex.topdir,
      '--no-bitbake',
      'apply',
      '--path',
      join(ex.root, 'ram'),
      '--size',
      '1g',
    ]);
    const auto = join(ex.topdir, 'conf', 'auto.conf');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(auto, readFileSync(auto, 'utf8').replace('rm_work', 'rm_work x'));
    const reverted = await runRambake(['-B', ex.topdir, 'revert']);
    expect(reverted.exitCode).toBe(1);
    expect(reverted.stderr).toMatch(/^rambake: .*edited by hand/m);
    expect((await runRambake(['-B', ex.topdir, 'revert', '--force'])).exitCode).toBe(0);
  });
});
