// Every command printed for a person to paste quotes every word that came from data (recipe
// names, targets, paths) with the one shell-quoting function. Checked by pasting: each printed
// line runs in sh with `rambake` and `bitbake` as functions that print their argv; the words
// must arrive unchanged and nothing else may run.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectReport } from '../../src/analyze/report-read.js';
import type { BuildDir } from '../../src/bitbake/builddir-types.js';
import { checkBitbakeLock } from '../../src/doctor/check-lock.js';
import { renderBitbakeCommand, renderRunStepsCommand } from '../../src/plan/mount-commands.js';
import { renderSteps } from '../../src/report/steps.js';
import { makeColors } from '../../src/text/format.js';
import { renderShellCommand } from '../../src/text/shell.js';
import { tempDir } from '../helpers/exec.js';
import { buildWithRun, confOnly } from '../report/helpers.js';

const canaryDir = tempDir('rambake-canary-');
afterAll(canaryDir.cleanup);
const canary = join(canaryDir.path, 'pwned');

/** Hostile recipe names: each would run `touch <canary>` if pasted unquoted. */
const HOSTILE = [
  `$(touch\${IFS}${canary})`,
  `\`touch ${canary}\``,
  `a'b"c;touch ${canary}`,
  `zlib\ntouch ${canary}`,
  '-cclean',
  '--help',
  'ok-name_1.2+x',
];

/** Runs `line` in sh and returns the argv `rambake`/`bitbake` received, one array per call. */
function paste(line: string): string[][] {
  const script = `rambake() { printf '<%s>' rambake "$@"; echo; }\nbitbake() { printf '<%s>' bitbake "$@"; echo; }\n${line}\n`;
  const out = execFileSync('sh', ['-c', script], { encoding: 'utf8' });
  return out
    .trimEnd()
    .split('>\n')
    .map((l) => [...`${l}>`.matchAll(/<([^>]*)>/g)].map((m) => m[1]!));
}

describe('printed commands survive pasting', () => {
  for (const name of HOSTILE) {
    it(`a recipe named ${JSON.stringify(name)}`, () => {
      rmSync(canary, { force: true });
      const run = renderRunStepsCommand([name, 'gcc'], name);
      const args = paste(run)[0]!;
      expect(args.slice(0, 3)).toEqual(['rambake', 'run', `--steps=${name},gcc`]);
      // bitbake gets the name as a target, never as an option.
      expect(args.at(-1)).toBe(name);
      expect(args.slice(3, name.startsWith('-') ? 6 : 5)).toEqual(
        name.startsWith('-') ? ['--', 'bitbake', '--'] : ['--', 'bitbake'],
      );
      expect(paste(renderBitbakeCommand(name))[0]!.at(-1)).toBe(name);
      expect(existsSync(canary)).toBe(false);
    });
  }

  it('renderSteps prints each step and the run line quoted', () => {
    rmSync(canary, { force: true });
    const evil = HOSTILE[0]!;
    const lines = renderSteps(
      {
        schemaVersion: 1,
        target: 'core-image-minimal',
        targets: ['core-image-minimal'],
        needed: true,
        why: 'does not fit',
        steps: [evil],
        reasons: [],
        graph: 'none',
        notes: [],
      },
      makeColors(false),
    );
    const step = lines.find((l) => l.startsWith('  1. '))!.slice(5);
    expect(step).toBe(renderShellCommand(['bitbake', evil]));
    expect(paste(step)).toEqual([['bitbake', evil]]);
    const run = lines
      .find((l) => l.startsWith('Or let rambake run them: '))!
      .slice('Or let rambake run them: '.length);
    expect(run).toBe(`rambake run '--steps=${evil}' -- bitbake core-image-minimal`);
    expect(paste(run)).toEqual([
      ['rambake', 'run', `--steps=${evil}`, '--', 'bitbake', 'core-image-minimal'],
    ]);
    expect(existsSync(canary)).toBe(false);
  });
});

describe('commands in findings, with words from data', () => {
  it('report: the steps-giant line of a run that recorded no command quotes the recipe names', async () => {
    const b = buildWithRun('tmpfs-run-kernel-peak');
    try {
      // A work dir (recipe) named to run a command when pasted; `/` cannot be in a folder name.
      const evil = '$(touch${IFS}pwned)';
      const run = join(b.topdir, 'rambake', 'runs', '20251130-142600.jsonl');
      const lines = readFileSync(run, 'utf8').replaceAll('linux-yocto', evil).trimEnd().split('\n');
      const edited = lines.map((l) => {
        const v = JSON.parse(l) as Record<string, unknown>;
        if (v.type === 'header') delete v.command;
        return JSON.stringify(v);
      });
      writeFileSync(run, `${edited.join('\n')}\n`);
      const r = await collectReport(confOnly(b.topdir), { plan: false });
      const giant = r.recommendations.filter((x) => x.rule === 'steps-giant').at(-1)!;
      expect(giant.text).toContain('followed by the bitbake command (this run recorded none)');
      const line = giant.text.slice(giant.text.indexOf('rambake run'), giant.text.indexOf(' followed by'));
      expect(line).toBe(`rambake run '--steps=${evil},gcc-cross-x86_64' --`);
      const cwd = tempDir('rambake-paste-');
      try {
        expect(
          execFileSync('sh', ['-c', `rambake() { printf '<%s>' "$@"; }\n${line}\n`], {
            cwd: cwd.path,
            encoding: 'utf8',
          }),
        ).toBe(`<run><--steps=${evil},gcc-cross-x86_64><-->`);
        expect(existsSync(join(cwd.path, 'pwned'))).toBe(false);
      } finally {
        cwd.cleanup();
      }
    } finally {
      b.cleanup();
    }
  });

  it('doctor: the `sudo rm` of a stale bitbake.lock quotes the path', () => {
    rmSync(canary, { force: true });
    const topdir = `/home/x/it's $(touch\${IFS}${canary}) \`b\``;
    const bd = {
      topdir,
      bitbakeLock: { state: 'stale', detail: 'pid 4242 gone', ownerCanOpen: false },
    } as unknown as BuildDir;
    const [finding] = checkBitbakeLock(bd);
    const file = join(topdir, 'bitbake.lock');
    const command = renderShellCommand(['sudo', 'rm', file]);
    expect(finding!.fix).toBe(`no server holds it: remove it as a user who may (e.g. ${command})`);
    const out = execFileSync('sh', ['-c', `sudo() { printf '<%s>' "$@"; }\n${command}\n`], {
      encoding: 'utf8',
    });
    expect(out).toBe(`<rm><${file}>`);
    expect(existsSync(canary)).toBe(false);
  });
});
