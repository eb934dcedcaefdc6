// Renders `rambake apply` and `rambake revert`: what changed (or would), then what is left to do.

import type { ApplyReport } from '../apply/apply.js';
import type { RevertReport } from '../apply/revert.js';
import type { KeptOutput } from '../apply/revert-aftermath.js';
import { formatBytes, plural } from '../text/format.js';

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
  lines.push(...renderEffect(r));
  for (const note of r.notes) lines.push(`note: ${note}`);
  if (!r.dryRun && r.statePath) lines.push(`undo with: rambake revert (state in ${r.statePath})`);
  return lines;
}

/** Whether the block takes effect: rambake's reading of the conf files, then BitBake's word. */
function renderEffect(r: ApplyReport): string[] {
  const e = r.effect;
  if (e.vars.length === 0) return [];
  const lines = ['', `in effect (rambake's reading of the conf files${r.dryRun ? ', with the block' : ''}):`];
  const width = Math.max(...e.vars.map((v) => v.name.length));
  for (const v of e.vars)
    lines.push(`  ${v.ok ? 'ok ' : 'NO '} ${v.name.padEnd(width)}  ${v.value ?? '(unset)'}`);
  lines.push(
    e.bitbake.confirmed
      ? `confirmed by BitBake (bitbake -e, ${e.bitbake.seconds.toFixed(1)} s)`
      : `not confirmed by BitBake: ${e.bitbake.reason}`,
  );
  return lines;
}

/** What revert changed, unmounted, and left alone. */
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
  lines.push(...renderKept(r.kept));
  if (r.nextBuild) lines.push('', `next build: ${r.nextBuild.text}`);
  for (const note of r.notes) lines.push(`note: ${note}`);
  return lines;
}

const KEPT_NAMES: Record<KeptOutput['kind'], string> = {
  images: 'images',
  deploy: 'the rest of deploy',
  buildstats: 'buildstats',
  'console-logs': 'console logs',
  'event-logs': 'event logs',
};

const KEPT_COUNTS: Record<KeptOutput['kind'], (n: number) => string> = {
  images: (n) => plural(n, 'machine'),
  deploy: (n) => plural(n, 'entry', 'entries'),
  buildstats: (n) => plural(n, 'build'),
  'console-logs': (n) => plural(n, 'log'),
  'event-logs': (n) => plural(n, 'log'),
};

/** rambake-keep/: what the RAM builds left there, one line each, and what it means now. */
function renderKept(kept: KeptOutput[]): string[] {
  if (kept.length === 0) return [];
  const width = Math.max(...kept.map((k) => KEPT_NAMES[k.kind].length));
  const pathWidth = Math.max(...kept.map((k) => k.path.length));
  const lines = ['', "the RAM builds' output, kept on disk (BitBake no longer writes there):"];
  for (const k of kept)
    lines.push(
      `  ${KEPT_NAMES[k.kind].padEnd(width)}  ${k.path.padEnd(pathWidth)}  ${formatBytes(k.bytes)} (${KEPT_COUNTS[k.kind](k.count)})`,
    );
  if (kept.some((k) => k.kind === 'images' || k.kind === 'deploy'))
    lines.push(
      '  before a later rambake apply, move rambake-keep/deploy aside: a fresh tmpfs has no sstate manifests for its files, and BitBake refuses to install over them',
    );
  return lines;
}
