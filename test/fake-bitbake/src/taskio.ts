// Per-task records BitBake keeps: ${T}/log.task_order, log.do_x.<pid> (+ symlink),
// run.do_x.<pid> (+ symlink), and buildstats (bitbake-formats.md §8, §9).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  formatBuildStatsEnd,
  formatBuildStatsFailure,
  formatBuildStatsStart,
  formatBuildstatsEnd,
  formatBuildstatsStart,
  formatTaskOrderLine,
  type TaskUsage,
} from './formats.js';
import { pfOf, workdirOf } from './naming.js';
import type { FakeConfig, ScenarioRecipe } from './types.js';

interface Open {
  pid: number;
  start: number;
  logfile: string;
}

export class TaskIo {
  private pid: number;
  private readonly open = new Map<string, Open>();
  /** Page-cache writes to a tmpfs never reach a block device: write_bytes stays near 0. */
  private readonly onTmpfs: boolean;

  constructor(
    private readonly cfg: FakeConfig,
    private readonly bsdir: string,
    private readonly rnd: () => number,
  ) {
    this.pid = 2000 + Math.floor(rnd() * 20000);
    this.onTmpfs = isTmpfs(cfg.tmpdir);
  }

  pf(r: ScenarioRecipe): string {
    return pfOf(r);
  }

  startBuild(epoch: number): void {
    fs.mkdirSync(this.bsdir, { recursive: true });
    const uname = [os.type(), os.hostname(), os.release(), os.version(), os.machine()];
    fs.appendFileSync(path.join(this.bsdir, 'build_stats'), formatBuildStatsStart(uname, epoch));
  }

  endBuild(elapsed: number): void {
    const cpu = 60 + this.rnd() * 35;
    appendQuietly(path.join(this.bsdir, 'build_stats'), formatBuildStatsEnd(elapsed, cpu));
  }

  /** May throw a write error (a full tmpfs): the task is open all the same and fails at its end. */
  startTask(r: ScenarioRecipe, task: string): void {
    this.pid += 1 + Math.floor(this.rnd() * 6);
    const pid = this.pid;
    const now = Date.now();
    const temp = path.join(workdirOf(this.cfg, r), 'temp');
    const logfile = path.join(temp, `log.${task}.${pid}`);
    this.open.set(`${r.pn}:${task}`, { pid, start: now, logfile });
    const micros = Math.floor(this.rnd() * 1000);
    fs.mkdirSync(temp, { recursive: true });
    fs.appendFileSync(
      path.join(temp, 'log.task_order'),
      formatTaskOrderLine(new Date(now), micros, task, pid),
    );
    fs.writeFileSync(logfile, `DEBUG: Executing shell function ${task}\n`);
    relink(path.join(temp, `log.${task}`), `log.${task}.${pid}`);
    fs.writeFileSync(
      path.join(temp, `run.${task}.${pid}`),
      `#!/bin/sh\n\n# Emit a useful diagnostic if something fails:\nbb_sh_exit_handler() {\n    ret=$?\n    exit $ret\n}\n\n${task}() {\n\t:\n}\n\ncd '${workdirOf(this.cfg, r)}'\n${task}\n`,
    );
    relink(path.join(temp, `run.${task}`), `run.${task}.${pid}`);
    const dir = path.join(this.bsdir, pfOf(r));
    fs.mkdirSync(dir, { recursive: true });
    fs.appendFileSync(path.join(dir, task), formatBuildstatsStart(now / 1000));
  }

  /** `lines` lines of a running task's output, appended to its log in one write. */
  output(r: ScenarioRecipe, task: string, lines: number): void {
    const o = this.open.get(`${r.pn}:${task}`);
    if (o === undefined || lines <= 0) return;
    let text = '';
    for (let i = 0; i < lines; i++)
      text += `x86_64-poky-linux-gcc -O2 -pipe -c -o obj/${r.pn}-${o.pid}-${i}.o src/${r.pn}-${i}.c\n`;
    appendQuietly(o.logfile, text);
  }

  /** Completes the task's files; `written`: the bytes its effects wrote. Returns its log file. */
  endTask(
    r: ScenarioRecipe,
    task: string,
    ok: boolean,
    written: number,
    error = 'oe_runmake failed',
  ): string {
    const o = this.open.get(`${r.pn}:${task}`)!;
    this.open.delete(`${r.pn}:${task}`);
    const now = Date.now();
    // Best effort, as BitBake's own logging: on a full file system the lines are lost, the build goes on.
    appendQuietly(
      o.logfile,
      ok
        ? `DEBUG: Shell function ${task} finished\n`
        : `ERROR: ${error}\n${error === 'oe_runmake failed' ? 'WARNING: exit code 1 from a shell command.\n' : ''}`,
    );
    const elapsed = (now - o.start) / 1000;
    const file = path.join(this.bsdir, pfOf(r), task);
    appendQuietly(
      file,
      formatBuildstatsEnd(pfOf(r), task, elapsed, this.usage(elapsed, written), ok, now / 1000),
    );
    if (!ok) appendQuietly(path.join(this.bsdir, 'build_stats'), formatBuildStatsFailure(pfOf(r), task));
    return o.logfile;
  }

  private usage(elapsed: number, written: number): TaskUsage {
    const n = (scale: number) => Math.floor(this.rnd() * scale);
    const ticks = Math.max(1, Math.round(elapsed * 100));
    return {
      utime: n(5),
      stime: n(3),
      cutime: ticks + n(ticks),
      cstime: n(ticks),
      io: {
        rchar: 100000 + n(1e7),
        // wchar: what the task's processes passed to write(): its files, plus logs and pipes.
        wchar: written + 4096 + n(65536),
        syscr: n(20000),
        syscw: Math.ceil(written / 65536) + n(100),
        read_bytes: n(1e6) * 4096,
        write_bytes: this.onTmpfs ? n(4) * 4096 : Math.ceil(written / 4096) * 4096 + n(16) * 4096,
        cancelled_write_bytes: 0,
      },
      rusage: rusage(n, 0.05),
      childRusage: rusage(n, elapsed),
    };
  }
}

function rusage(n: (s: number) => number, cpu: number): Record<string, number> {
  return {
    ru_utime: Number((cpu * 0.8).toFixed(6)),
    ru_stime: Number((cpu * 0.1).toFixed(6)),
    ru_maxrss: 20000 + n(200000),
    ru_minflt: n(100000),
    ru_majflt: 0,
    ru_inblock: n(1000),
    ru_oublock: n(20000),
    ru_nvcsw: n(5000),
    ru_nivcsw: n(500),
  };
}

/** Whether dir (or, before the build makes it, its nearest existing parent) is on a tmpfs. */
function isTmpfs(dir: string): boolean {
  let d = dir;
  while (!fs.existsSync(d) && path.dirname(d) !== d) d = path.dirname(d);
  return fs.statfsSync(d).type === 0x01021994;
}

/** Appends, ignoring write errors (ENOSPC): logs are not worth failing a build over. */
export function appendQuietly(file: string, text: string): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, text);
  } catch {
    // the file system is full or gone
  }
}

function relink(link: string, target: string): void {
  fs.rmSync(link, { force: true });
  fs.symlinkSync(target, link);
}
