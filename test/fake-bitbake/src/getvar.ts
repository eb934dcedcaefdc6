// `bitbake-getvar [--value] VAR…`: answers from the fake's own reading of the conf files, as
// the real one answers from BitBake's datastore (its messages: bitbake/bin/bitbake-getvar).

import { parseArgs } from 'node:util';
import { formatHistory, formatVar, holdsPython } from './conf/emit.js';
import { ConfParseError } from './conf/parse.js';
import { ConfError, readBuildConf } from './conf/read.js';

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
  let conf: ReturnType<typeof readBuildConf>;
  try {
    conf = readBuildConf(process.cwd(), env);
  } catch (err) {
    if (err instanceof ConfError || err instanceof ConfParseError) {
      console.error(`ERROR: ${err.message}`);
      return 1;
    }
    throw err;
  }
  for (const name of positionals) {
    let v = conf.store.get(name);
    if (holdsPython(v)) {
      console.error(`NOTE: ${name} holds Python the fake BitBake cannot evaluate; treated as unset`);
      v = undefined;
    }
    if (v === undefined && !values['ignore-undefined']) {
      console.error(`The variable '${name}' is not defined`);
      return 1;
    }
    if (values.value) console.log(v ?? '');
    else process.stdout.write(`${formatHistory(conf.store, name)}${formatVar(conf.store, name)}`);
  }
  return 0;
}
