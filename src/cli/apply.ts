import type { Command } from 'commander';
import { EXIT_OK, UsageError } from '../errors.js';
import { type ApplyReport, type ConfChoice, runApply } from '../plan/apply.js';
import { formatBytes } from '../report/format.js';
import { setup } from './common.js';
import { addTableOptions, planOptions } from './plan.js';

interface ApplyFlags {
  dryRun?: boolean;
  conf?: string;
  size?: string;
  path?: string;
  scope?: string;
  target?: string;
  force?: boolean;
  unitFile?: string;
}

const CONF_CHOICES: readonly ConfChoice[] = ['auto', 'local', 'site', 'kas'];

export function confChoice(value: string | undefined): ConfChoice {
  if (value === undefined) return 'auto';
  if ((CONF_CHOICES as readonly string[]).includes(value)) return value as ConfChoice;
  throw new UsageError(`--conf ${value}: expected auto, local, site or kas`);
}

export function registerApply(program: Command): void {
  const cmd = program
    .command('apply')
    .description("mount the planned tmpfs (or print how) and write rambake's managed block into a conf file");
  addTableOptions(cmd, 'apply').action(async (flags: ApplyFlags, command: Command) => {
    const { out, load } = setup(command);
    const report = await runApply(load, planOptions(flags), {
      conf: confChoice(flags.conf),
      dryRun: flags.dryRun === true,
      force: flags.force === true,
      ...(flags.unitFile === undefined ? {} : { unitFile: flags.unitFile }),
    });
    if (out.json) out.document(report);
    else for (const line of renderApply(report)) out.line(line);
    process.exitCode = EXIT_OK;
  });
}

/** Plain text: what changed (or would), then what the user still has to do. */
export function renderApply(r: ApplyReport): string[] {
  const lines: string[] = [];
  const would = r.dryRun ? 'would ' : '';
  if (r.conf.kas !== undefined) {
    lines.push('Add this to your kas file (kas rewrites conf/local.conf on every run):', '', r.conf.kas);
  } else if (r.conf.changed) {
    lines.push(`${r.conf.file}: ${would}${r.conf.creates ? 'create with' : 'write'} the managed block`, '');
    lines.push(...r.conf.diff.trimEnd().split('\n'), '');
  } else lines.push(`${r.conf.file}: unchanged (the managed block is up to date)`);
  if (r.conf.backup) lines.push(`backup of the original: ${r.conf.backup}`);
  const m = r.mount;
  if (m.status === 'mounted') lines.push(`mounted tmpfs ${m.source} on ${m.path} (${m.options.join(',')})`);
  else if (m.status === 'already') lines.push(`tmpfs ${m.source} is already mounted on ${m.path}`);
  else {
    lines.push(m.status === 'planned' ? 'would run:' : 'run as root:');
    for (const c of m.commands) lines.push(`  ${c}`);
  }
  if (m.status !== 'already')
    lines.push('', 'or mount it at boot, with this /etc/fstab line:', `  ${m.fstab}`);
  if (m.unitFile) {
    lines.push(`${m.unitFile.written ? 'wrote' : 'would write'} systemd unit ${m.unitFile.path}`);
    if (!m.unitFile.written)
      lines.push(
        ...m.unitFile.text
          .trimEnd()
          .split('\n')
          .map((l) => `  ${l}`),
      );
  }
  if (r.workdirCosts) {
    lines.push('', 'costs of a WORKDIR-only tmpfs:');
    for (const t of r.workdirCosts.text) lines.push(`  - ${t}`);
    if (r.workdirCosts.componentsBytes !== undefined)
      lines.push(`  sysroots-components: ${formatBytes(r.workdirCosts.componentsBytes)}`);
  }
  for (const note of r.notes) lines.push(`note: ${note}`);
  if (!r.dryRun && r.statePath) lines.push(`undo with: rambake revert (state in ${r.statePath})`);
  return lines;
}
