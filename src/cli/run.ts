import type { Command } from 'commander';
import type { LoadOptions } from '../bitbake/builddir-types.js';
import { EXIT_FINDINGS, UsageError } from '../errors.js';
import { renderRunSummary } from '../report/watch.js';
import { setup } from './common.js';
import { addCommandOptions, intervalMs, makeDisplay } from './watch-common.js';

interface RunFlags {
  interval?: string;
  timeline?: string;
  steps?: string;
  ignoreDoctor?: boolean;
  moveOldDeploy?: boolean;
}

export function registerRun(program: Command): void {
  const cmd = program
    .command('run')
    .description(
      'run a command (e.g. `rambake run -- bitbake core-image-sato`) while watching; exit with its code',
    )
    .argument('<command...>', 'the command and its arguments, after --');
  addCommandOptions(cmd, 'run').action(async (command: string[], flags: RunFlags, cmd: Command) => {
    const { out, load } = setup(cmd, { askBitbake: false });
    if (command.length === 0)
      throw new UsageError('rambake run needs a command', 'rambake run -- bitbake <target>');
    const interval = intervalMs(flags.interval);
    const { loadBuildDir } = await import('../bitbake/builddir.js');
    const { checkBeforeBuild } = await import('../doctor/doctor.js');
    const { renderBeforeBuild } = await import('../report/before-build.js');
    const bd = await loadBuildDir(load);
    const before = await checkBeforeBuild(bd, { moveOldDeploy: flags.moveOldDeploy === true });
    const checked = renderBeforeBuild(before, {
      topdir: bd.topdir,
      command,
      ...(flags.steps === undefined ? {} : { steps: flags.steps }),
      ignore: flags.ignoreDoctor === true,
    });
    for (const line of checked.lines) out.warn(line);
    if (checked.refuse) {
      if (out.json) out.document({ schemaVersion: 1, started: false, findings: before.stoppers });
      process.exitCode = EXIT_FINDINGS;
      return;
    }
    const commands =
      flags.steps === undefined ? [command] : await stepsToCommands(load, command, flags.steps);
    const display = makeDisplay(out, { jsonLines: false });
    const { startRun } = await import('../watch/run.js');
    const { renderFullTmpfs } = await import('../report/run-verdict.js');
    const run = startRun(bd, {
      steps: commands,
      intervalMs: interval,
      childStdoutToStderr: out.json,
      ...(flags.timeline ? { timelinePath: flags.timeline } : {}),
      onLine: display.onLine,
      // The child owns the terminal: no redrawn frame over BitBake's own output.
      onSample: out.isTTY ? () => undefined : display.onSample,
    });
    // A terminal's Ctrl-C reaches the whole foreground group, the child included: forwarding
    // SIGINT again would make BitBake stop harder. SIGTERM, and SIGINT sent to rambake alone
    // (no terminal), are forwarded.
    const onSignal = (signal: NodeJS.Signals) => {
      if (!(signal === 'SIGINT' && process.stdin.isTTY)) run.interrupt(signal);
      else run.interrupt('SIGCONT');
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      const summary = await run.done;
      if (out.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      else
        for (const line of renderRunSummary(summary, out.colors, summary.timeline, summary.steps))
          out.line(line);
      for (const step of summary.steps)
        if (step.error) out.warn(`rambake: ${step.command.join(' ')}: ${step.error}`);
      const full = renderFullTmpfs({
        exitCode: summary.exitCode,
        peak: summary.peak,
        tmpfs: await tmpfsOf(bd.paths.tmpdir),
        command,
        stepped: commands.length > 1,
      });
      if (full) out.warn(full);
      if (summary.timelineIncomplete)
        out.warn(
          `rambake: ${summary.timeline}: the timeline is incomplete (${summary.timelineIncomplete.reason}; ${summary.timelineIncomplete.linesLost} lines lost): report and plan see only part of this build`,
        );
      process.exitCode = summary.exitCode;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}

/**
 * `--steps auto|a,b,c -- bitbake A B…`: build each step alone, then the command as given (every
 * target and option kept).
 */
async function stepsToCommands(load: LoadOptions, command: string[], spec: string): Promise<string[][]> {
  const { commandTargets } = await import('../timeline/timeline-runs.js');
  const { BITBAKE_WORD, resolveSteps, stepCommands } = await import('../plan/steps.js');
  const targets = commandTargets(command);
  if (!command.some((a) => BITBAKE_WORD.test(a)) || targets.length === 0)
    throw new UsageError(
      `--steps goes with a bitbake command that names its targets, not '${command.join(' ')}'`,
      'rambake run --steps auto -- bitbake <target>…',
    );
  return stepCommands(await resolveSteps(load, targets, spec), command);
}

/** TMPDIR's tmpfs, read after the build (it is still mounted); undefined on a disk or when gone. */
async function tmpfsOf(tmpdir: string): Promise<{ totalBytes: number; totalInodes: number } | undefined> {
  const { isTmpfs, statFs } = await import('../system/fsstat.js');
  const fs = await statFs(tmpdir).catch(() => undefined);
  return fs && isTmpfs(fs) ? { totalBytes: fs.totalBytes, totalInodes: fs.totalInodes } : undefined;
}
