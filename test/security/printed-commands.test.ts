// Every command printed for a person to paste quotes every word that came from data (recipe
// names, targets, paths) with the one shell-quoting function. Checked by pasting: each printed
// line runs in sh with `rambake` and `bitbake` as functions that print their argv; the words
// must arrive unchanged and nothing else may run.

import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderBitbakeCommand, renderRunStepsCommand } from '../../src/plan/mount-commands.js';
import { renderSteps } from '../../src/report/steps.js';
import { makeColors } from '../../src/text/format.js';
import { renderShellCommand } from '../../src/text/shell.js';
import { tempDir } from '../helpers/exec.js';

const canary = join(tempDir('rambake-canary-').path, 'pwned');

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
