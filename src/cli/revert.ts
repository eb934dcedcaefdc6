import type { Command } from 'commander';
import { findBuildDir } from '../bitbake/discover.js';
import { EXIT_OK } from '../errors.js';
import { type RevertReport, revertApply } from '../plan/revert.js';
import { formatBytes } from '../report/format.js';
import { setup } from './common.js';
import { addTableOptions } from './plan.js';

export function registerRevert(program: Command): void {
  const cmd = program
    .command('revert')
    .description('undo rambake apply: cut the managed block out, unmount the tmpfs when nothing uses it');
  addTableOptions(cmd, 'revert').action(async (flags: { force?: boolean }, command: Command) => {
    const { out, flags: globals } = setup(command);
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

export function renderRevert(r: RevertReport): string[] {
  const lines: string[] = [];
  if (r.conf) {
    if (r.conf.deleted) lines.push(`${r.conf.file}: removed (rambake had created it)`);
    else if (r.conf.changed)
      lines.push(`${r.conf.file}: managed block removed`, '', ...r.conf.diff.trimEnd().split('\n'), '');
    else lines.push(`${r.conf.file}: no managed block`);
  } else lines.push('no conf file holds a rambake managed block');
  const m = r.mount;
  if (m?.status === 'unmounted')
    lines.push(`unmounted ${m.source} from ${m.path}${m.folderRemoved ? ' and removed the folder' : ''}`);
  else if (m?.status === 'not-mounted') lines.push(`${m.path} was not mounted any more`);
  else if (m?.status === 'commands') lines.push('run as root:', ...m.commands.map((c) => `  ${c}`));
  if (r.leftOnDisk) {
    lines.push(
      `the TMPDIR from before apply is still on disk: ${r.leftOnDisk.path} (${formatBytes(r.leftOnDisk.bytes)}), not removed`,
    );
  }
  for (const note of r.notes) lines.push(`note: ${note}`);
  return lines;
}
