import { type Command, Option } from 'commander';
import { EXIT_OK, UsageError } from '../errors.js';
import { runBenchIo } from '../plan/bench-io.js';
import { renderBenchIo } from '../report/bench-io.js';
import { setup } from './common.js';
import { optionsFor } from './options.js';

export function registerBenchIo(program: Command): void {
  const cmd = program
    .command('bench-io')
    .description('measure how much a tmpfs TMPDIR speeds up build-shaped file-system work on this host');
  for (const spec of optionsFor('bench-io').filter((o) => o.scope !== 'global')) {
    const opt = new Option(spec.flags, spec.description);
    if (typeof spec.defaultValue === 'string') opt.default(spec.defaultValue);
    cmd.addOption(opt);
  }
  cmd.action(async (opts: { dir?: string; seconds?: string }, c: Command) => {
    const { out, load } = setup(c, { askBitbake: false });
    const seconds = Number(opts.seconds ?? '60');
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError(`--seconds '${opts.seconds}' is not a positive number`, 'e.g. --seconds 20');
    }
    if (out.isTTY && !out.json) out.warn(`running the workload for about ${seconds}s…`);
    const result = await runBenchIo(load, { seconds, ...(opts.dir ? { dir: opts.dir } : {}) });
    if (out.json) out.document(result);
    else for (const line of renderBenchIo(result, out.colors)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
