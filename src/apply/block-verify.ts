// Making the managed block win, and checking that it did, the way BitBake will see it:
// 1. before writing: evaluate the whole configuration with the block in place (an in-memory
//    overlay of the one conf file); a line that loses to a later assignment is rewritten with
//    `:forcevariable` / `:append`; a line that still loses makes apply refuse, naming the
//    file:line that wins;
// 2. after writing: when BitBake is on PATH and no build holds it, one `bitbake -e` must show
//    every variable of the block with the block's value.

import { realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { askBitbake, bitbakeUser } from '../bitbake/ask-bitbake.js';
import { evaluateConf } from '../bitbake/builddir.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { nodeConfIO } from '../bitbake/conf/node-io.js';
import type { ConfIO } from '../bitbake/conf/types.js';
import { UnsafeEditError } from '../errors.js';
import { type BlockLineEffect, blockEffects, forcedLine, linesNotInEffect } from './block-effect.js';
import { type BlockWrite, planBlockWrite } from './conf-write.js';

export interface SettledBlock {
  lines: string[];
  planned: BlockWrite;
  effects: BlockLineEffect[];
  /** Lines rewritten so that they win: [as planned, as written]. */
  forced: Array<[string, string]>;
}

/** The conf files as BitBake will read them once `file` holds `text` (latin1, as apply keeps it). */
function overlay(io: ConfIO, bd: BuildDir, file: string, text: string): ConfIO {
  const utf8 = Buffer.from(text, 'latin1').toString('utf8');
  const nominal = join(bd.topdir, 'conf', basename(file));
  const isTarget = (p: string) => {
    if (p === file || p === nominal) return true;
    try {
      return realpathSync(p) === file;
    } catch {
      return false;
    }
  };
  // The file may not exist yet: include finds files with isFile before reading them.
  return {
    ...io,
    readFile: (p) => (isTarget(p) ? utf8 : io.readFile(p)),
    isFile: (p) => isTarget(p) || io.isFile(p),
  };
}

function effectsOf(
  bd: BuildDir,
  file: string,
  after: string,
  lines: readonly string[],
  env: NodeJS.ProcessEnv,
) {
  const config = evaluateConf(bd.topdir, overlay(nodeConfIO, bd, file, after), env);
  return blockEffects(config.data, lines);
}

/** The block lines that take effect, rewritten where needed; refuses when one cannot win. */
export async function settleBlock(
  bd: BuildDir,
  file: string,
  lines: readonly string[],
  opts: { force?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<SettledBlock> {
  const env = opts.env ?? process.env;
  let planned = await planBlockWrite(file, lines, opts.force);
  let effects = effectsOf(bd, file, planned.after, lines, env);
  const forced: Array<[string, string]> = [];
  let settled = [...lines];
  if (effects.some((e) => !e.ok)) {
    settled = lines.map((line) => {
      const lost = effects.find((e) => e.line === line && !e.ok);
      const stronger = lost ? forcedLine(line) : undefined;
      if (stronger) forced.push([line, stronger]);
      return stronger ?? line;
    });
    planned = await planBlockWrite(file, settled, opts.force);
    effects = effectsOf(bd, file, planned.after, settled, env);
  }
  const lost = effects.find((e) => !e.ok);
  if (lost) {
    const where = lost.winner ? `${lost.winner.file}:${lost.winner.line}` : 'a later assignment';
    throw new UnsafeEditError(
      `${where} sets ${lost.name} after rambake's block, and wins even over :forcevariable: the RAM build would not take effect (${lost.name} would be "${lost.actual ?? ''}")`,
      { hint: `change or remove ${lost.name} there, then apply again` },
    );
  }
  return { lines: settled, planned, effects, forced };
}

export type BitbakeCheck =
  | { asked: false; reason: string }
  | { asked: true; ok: true; seconds: number }
  | { asked: true; ok: false; reason: string };

/** After the write: does BitBake itself use every value of the block? */
export async function confirmWithBitbake(
  bd: BuildDir,
  settled: SettledBlock,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BitbakeCheck> {
  if (bd.buildRunning) return { asked: false, reason: 'a build holds bitbake.lock' };
  const answer = await askBitbake({ topdir: bd.topdir, files: bd.files, ...bitbakeUser(bd.topdir, env) });
  if (!answer.ok) {
    if (answer.reason === 'bitbake is not on PATH') return { asked: false, reason: answer.reason };
    return { asked: true, ok: false, reason: answer.reason };
  }
  const vars = answer.env.vars;
  const wrong = linesNotInEffect(settled.lines, (name) => vars.get(name));
  if (wrong.length === 0) return { asked: true, ok: true, seconds: answer.seconds };
  const text = wrong
    .map((w) => `${w.name} is "${w.actual ?? '(unset)'}" (the block says "${w.expected}")`)
    .join('; ');
  return { asked: true, ok: false, reason: `BitBake does not use the block: ${text}` };
}
