import type { Command } from 'commander';
import { EXIT_OK } from '../errors.js';
import { setup } from './common.js';
import { addOptions } from './options.js';

export function registerRevert(program: Command): void {
  const cmd = program
    .command('revert')
    .description(
      "undo rambake apply: cut the managed block out, unmount the tmpfs when nothing uses it, say where the RAM builds' images, buildstats and logs are and what the next build does",
    );
  addOptions(cmd, 'revert').action(async (flags: { force?: boolean }, command: Command) => {
    const { out, flags: globals } = setup(command);
    const { findBuildDir } = await import('../bitbake/discover.js');
    const { revertApply } = await import('../apply/revert.js');
    const { renderRevert } = await import('../report/apply.js');
    const { topdir } = findBuildDir({
      ...(globals.buildDir === undefined ? {} : { buildDir: globals.buildDir }),
      cwd: process.cwd(),
      env: process.env,
    });
    const report = await revertApply(topdir, { force: flags.force === true });
    if (out.json) out.document(report);
    else for (const line of renderRevert(report)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}
