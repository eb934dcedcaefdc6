// `bitbake-getvar [--value] VAR…`: answers from rambake's BuildDir, as the real one answers
// from BitBake's datastore (its messages: bitbake/bin/bitbake-getvar).

import { parseArgs } from 'node:util';
import { loadBuildDirForFake } from './config.js';

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      value: { type: 'boolean' },
      recipe: { type: 'string', short: 'r' },
      quiet: { type: 'boolean', short: 'q' },
      'ignore-undefined': { type: 'boolean' },
    },
  });
  const bd = await loadBuildDirForFake(process.cwd(), env);
  for (const name of positionals) {
    const v = bd.getVar(name).value;
    if (v === undefined && !values['ignore-undefined']) {
      console.error(`The variable '${name}' is not defined`);
      return 1;
    }
    if (values.value) console.log(v ?? '');
    else
      console.log(
        `#\n# $${name}\n#   set ${bd.getVar(name).file ?? '?'}:${bd.getVar(name).line ?? 0}\n${name}="${v ?? ''}"`,
      );
  }
  return 0;
}
