// Making the managed block win, and checking that it did, the way BitBake will see it:
// 1. before writing: evaluate the whole configuration with the block in place (an in-memory
//    overlay of the one conf file); a line that loses to a later assignment is rewritten with
//    `:forcevariable` / `:append`; a line that still loses makes apply refuse, naming the
//    file:line that wins (an :append of the user's, which BitBake applies even over
//    :forcevariable, or a stronger override);
// 2. after writing: when BitBake is on PATH and no build holds it, one `bitbake -e` must show
//    every variable of the block with the block's value. When it does not, the conf files are
//    read again with BitBake's own OVERRIDES (what rambake's reading could not work out: Python
//    in OVERRIDES, a distro rambake did not see) to name the line that wins; when `bitbake -e`
//    fails, its first ERROR line is the reason.

import { realpathSync } from 'node:fs';
import { basename, join } from 'node:path';
import { askBitbake, bitbakeUser } from '../bitbake/ask-bitbake.js';
import { evaluateConf } from '../bitbake/builddir.js';
import type { BuildDir } from '../bitbake/builddir-types.js';
import { nodeConfIO } from '../bitbake/conf/node-io.js';
import type { ConfIO } from '../bitbake/conf/types.js';
import { UnsafeEditError } from '../errors.js';
import {
  type BlockLineEffect,
  blockEffects,
  describeWinner,
  forcedLine,
  inBlockText,
  linesNotInEffect,
  rereadAgrees,
  type Winner,
  winnerOf,
} from './block-effect.js';
import { type BlockWrite, type BlockWriteOptions, planBlockWrite } from './conf-write.js';

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

/** The paths the conf reader may give `file` in a Location: as chosen, and as conf/<name>. */
const namesOf = (bd: BuildDir, file: string) => [file, join(bd.topdir, 'conf', basename(file))];

function effectsOf(
  bd: BuildDir,
  file: string,
  after: string,
  lines: readonly string[],
  env: NodeJS.ProcessEnv,
) {
  const config = evaluateConf(bd.topdir, overlay(nodeConfIO, bd, file, after), env);
  return blockEffects(config.data, lines, inBlockText(namesOf(bd, file), after));
}

/** The block lines that take effect, rewritten where needed; refuses when one cannot win. */
export async function settleBlock(
  bd: BuildDir,
  file: string,
  lines: readonly string[],
  opts: BlockWriteOptions & { env?: NodeJS.ProcessEnv } = {},
): Promise<SettledBlock> {
  const env = opts.env ?? process.env;
  let planned = await planBlockWrite(file, lines, opts);
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
    planned = await planBlockWrite(file, settled, opts);
    effects = effectsOf(bd, file, planned.after, settled, env);
  }
  const lost = effects.find((e) => !e.ok);
  if (lost) {
    const w = lost.winner;
    const who = w ? describeWinner(w, lost.name) : `a later assignment sets ${lost.name}`;
    const why =
      w && w.how !== 'sets' && w.how !== 'unsets'
        ? ` (BitBake applies :${w.how.split(' ')[0]!.replace(/s$/, '')} after every override, :forcevariable included)`
        : ', and wins even over :forcevariable';
    throw new UnsafeEditError(
      `${who} after rambake's block${why}: the RAM build would not take effect (${lost.name} would be "${lost.actual ?? ''}")`,
      { hint: `change or remove that line${w ? ` (${w.loc.file}:${w.loc.line})` : ''}, then apply again` },
    );
  }
  return { lines: settled, planned, effects, forced };
}

export type BitbakeCheck =
  | { asked: false; reason: string }
  | { asked: true; ok: true; seconds: number }
  /** failed: `bitbake -e` itself failed (reason holds its first ERROR line); else it disagreed. */
  | { asked: true; ok: false; failed: boolean; reason: string };

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
    return { asked: true, ok: false, failed: true, reason: answer.reason };
  }
  const vars = answer.env.vars;
  const lookup = (name: string) => vars.get(name);
  const wrong = linesNotInEffect(settled.lines, lookup);
  if (wrong.length === 0) return { asked: true, ok: true, seconds: answer.seconds };
  const winners = winnersWithBitbakeValues(bd, settled, env, wrong, lookup);
  const text = wrong
    .map((w, i) => {
      const said = `${w.name} is "${w.actual ?? '(unset)'}" (the block says "${w.expected}")`;
      const winner = winners[i];
      return winner ? `${said}: ${describeWinner(winner, w.name)}` : said;
    })
    .join('; ');
  return { asked: true, ok: false, failed: false, reason: `BitBake does not use the block: ${text}` };
}

/**
 * For each variable BitBake gives another value than the block's: the line that decides it, as
 * rambake reads the conf files (the block now in place) with BitBake's own OVERRIDES, named only
 * when that reading then gives BitBake's very value. A class or anonymous Python that sets it
 * leaves it unnamed (rambake does not run them).
 */
function winnersWithBitbakeValues(
  bd: BuildDir,
  settled: SettledBlock,
  env: NodeJS.ProcessEnv,
  wrong: ReturnType<typeof linesNotInEffect>,
  lookup: (name: string) => string | undefined,
): Array<Winner | undefined> {
  const { file, after } = settled.planned;
  let data: ReturnType<typeof evaluateConf>['data'];
  try {
    data = evaluateConf(bd.topdir, overlay(nodeConfIO, bd, file, after), env).data;
  } catch {
    return wrong.map(() => undefined);
  }
  const overrides = lookup('OVERRIDES');
  if (overrides !== undefined) data.setVar('OVERRIDES', overrides);
  const isBlock = inBlockText(namesOf(bd, file), after);
  return wrong.map((w) => {
    const line = settled.effects.find((e) => e.line === w.line);
    if (!rereadAgrees(data, w.name, w.actual, lookup)) return undefined;
    return winnerOf(data, w.name, line?.kind === 'words' ? 'words' : 'value', isBlock);
  });
}
