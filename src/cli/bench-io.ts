import type { Command } from 'commander';
import { EXIT_OK } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

export function registerBenchIo(program: Command): void {
  const cmd = program
    .command('bench-io')
    .description('measure how much a tmpfs TMPDIR speeds up build-shaped file-system work on this host');
  addOptions(cmd, 'bench-io').action(async (opts: { dir?: string; seconds?: number }, c: Command) => {
    const { out, load } = setup(c, { askBitbake: false });
    const seconds = opts.seconds ?? 60;
    const { runBenchIo } = await import('../usecases/bench-io.js');
    const { renderBenchIo } = await import('../report/bench-io.js');
    if (out.isTTY && !out.json) out.warn(`running the workload for about ${seconds}s…`);
    const result = await runBenchIo(load, { seconds, ...(opts.dir ? { dir: opts.dir } : {}) });
    if (out.json) out.document(result);
    else for (const line of renderBenchIo(result, out.colors)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
