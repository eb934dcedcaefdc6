import type { Command } from 'commander';
import { EXIT_OK } from '../errors.js';
import { renderRunSummary } from '../report/watch.js';
import { setup } from './common.js';
import { addCommandOptions, intervalMs, makeDisplay } from './watch-common.js';

interface WatchFlags {
  interval?: string;
  timeline?: string;
  untilBuildEnd?: boolean;
}

export function registerWatch(program: Command): void {
  const cmd = program
    .command('watch')
    .description(
      'watch a build (running or about to start): tmpfs fill, work dirs and their rm_work states; Ctrl-C stops',
    );
  addCommandOptions(cmd, 'watch').action(async (flags: WatchFlags, cmd: Command) => {
    const { out, load } = setup(cmd, { askBitbake: false });
    const interval = intervalMs(flags.interval);
    const { loadBuildDir } = await import('../bitbake/builddir.js');
    const bd = await loadBuildDir(load);
    const { startWatch } = await import('../watch/watcher.js');
    const { defaultTimelinePath } = await import('../timeline/timeline-file.js');
    const { ownPeakOf } = await import('../watch/own-peak.js');
    const display = makeDisplay(out, { jsonLines: true });
    // Said before the first frame: a line printed between frames would shift the live view.
    const timelinePath = flags.timeline ?? defaultTimelinePath(bd.topdir, new Date());
    if (!out.json) out.warn(`rambake: watching ${bd.paths.tmpdir}; timeline ${timelinePath}`);
    const watch = await startWatch(bd, {
      intervalMs: interval,
      timelinePath,
      onLine: display.onLine,
      onSample: display.onSample,
    });
    // Signal handlers belong to the command that needs them: stop cleanly, write the summary.
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      if (flags.untilBuildEnd) void watch.buildEnded().then(stop);
    });
    const stopped = await watch.stop();
    const { ownPeak } = await ownPeakOf(bd, watch.timelinePath, {
      shared: stopped.baselineBytes !== undefined,
      samples: false,
    });
    const summary = ownPeak ? { ...stopped, ownPeak } : stopped;
    display.end();
    if (out.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else for (const line of renderRunSummary(summary, out.colors, watch.timelinePath)) out.line(line);
    if (watch.writeError) out.warn(`rambake: the timeline could not be written: ${watch.writeError.message}`);
    process.exitCode = EXIT_OK;
  });
}
