// Benchmarks of the build-record readers:
// - a 50,000-task buildstats folder through readBuildstatsBuild (goal: under 2 s);
// - a 1 GB console log (RAMBAKE_BENCH_LOG_MB scales it) streamed through readConsoleLog in a
//   child process, so the peak RSS is the reader's own (goal: under 100 MB), with `wc -l` on
//   the same file as the throughput reference.

import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { readBuildstatsBuild } from '../src/bitbake/buildstats.js';
import type { BenchRow } from './types.js';

const TASKS = ['do_fetch', 'do_unpack', 'do_patch', 'do_configure', 'do_compile'];
const TASKS_MORE = [
  'do_install',
  'do_package',
  'do_packagedata',
  'do_package_write_ipk',
  'do_populate_sysroot',
];

function writeBuildstats(dir: string, recipes: number): number {
  let started = 1764512345;
  let count = 0;
  for (let r = 0; r < recipes; r++) {
    const pf = `recipe${r}-1.${r % 97}.${r % 13}-r0`;
    mkdirSync(join(dir, pf), { recursive: true });
    for (const task of [...TASKS, ...TASKS_MORE]) {
      started += 0.37;
      const name = r % 7 === 0 && task === 'do_package' ? 'do_package_setscene' : task;
      writeFileSync(
        join(dir, pf, name),
        `Event: TaskStarted \nStarted: ${started.toFixed(2)} \n${pf}: ${name}\nElapsed time: 1.23 seconds\n` +
          'utime: 4\nstime: 1\ncutime: 100\ncstime: 20\nIO rchar: 123456\nIO wchar: 3456\nIO read_bytes: 0\n' +
          'IO write_bytes: 40960\nrusage ru_utime: 0.04\nrusage ru_stime: 0.01\nrusage ru_maxrss: 51200\n' +
          'Child rusage ru_utime: 1.0\nChild rusage ru_stime: 0.2\nChild rusage ru_maxrss: 90000\n' +
          `Status: PASSED \nEnded: ${(started + 1.23).toFixed(2)} \n`,
      );
      count++;
    }
  }
  writeFileSync(join(dir, 'build_stats'), 'Host Info: Linux bench \nBuild Started: 1764512345.00 \n');
  return count;
}

// About 1 MiB of lines in the proportions of a real log: mostly task notes, some plain output.
function consoleBlock(seed: number): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 1024 * 1024; i++) {
    const n = seed * 100000 + i;
    const tid = `mc:arm:virtual:native:/home/u/poky/meta/recipes-core/r${n % 900}/r${n % 900}_1.${n % 7}.bb`;
    const line =
      i % 5 === 0
        ? `NOTE: Running task ${n} of 9421 (${tid}:do_compile)`
        : i % 5 === 1
          ? `NOTE: recipe r${n % 900}-1.${n % 7}-r0: task do_compile: Succeeded`
          : i % 5 === 2
            ? `NOTE: Running setscene task ${n} of 4000 (${tid}:do_populate_sysroot_setscene)`
            : i % 5 === 3
              ? `WARNING: r${n % 900}-1.0-r0 do_package_qa: QA Issue: file /usr/lib/x has no GNU_HASH [ldflags]`
              : `| checking for stdint.h... yes (iteration ${n})`;
    lines.push(line);
    bytes += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

function writeConsoleLog(file: string, megabytes: number): number {
  const fd = openSync(file, 'w');
  let bytes = 0;
  try {
    for (let mb = 0; mb < megabytes; mb++) {
      // One 4 MiB line per 256 MiB: the reader must skip it, not buffer it.
      if (mb % 256 === 128) bytes += writeSync(fd, `${'z'.repeat(4 * 1024 * 1024)}\n`);
      bytes += writeSync(fd, consoleBlock(mb % 8));
    }
    bytes += writeSync(
      fd,
      'Initialising tasks...Sstate summary: Wanted 1 Local 1 Mirrors 0 Missed 0 Current 0 (100% match, 100% complete)\n',
    );
  } finally {
    closeSync(fd);
  }
  return bytes;
}

// The child runs the built modules when `npm run bench` built dist/, else the sources through tsx.
function childArgs(file: string): string[] {
  const built = existsSync(fileURLToPath(new URL('../dist/bitbake/consolelog.js', import.meta.url)));
  const moduleUrl = (rel: string) =>
    new URL(built ? `../dist/${rel}.js` : `../src/${rel}.ts`, import.meta.url).href;
  const module = moduleUrl('bitbake/consolelog');
  const rssModule = moduleUrl('system/peak-rss');
  const script = `
    const { readConsoleLog } = await import(${JSON.stringify(module)});
    const { peakRssKiB } = await import(${JSON.stringify(rssModule)});
    const counts = {};
    const t0 = performance.now();
    const r = await readConsoleLog(${JSON.stringify(file)}, (e) => { counts[e.kind] = (counts[e.kind] ?? 0) + 1; });
    const ms = performance.now() - t0;
    process.stdout.write(JSON.stringify({ ms, lines: r.lines, skipped: r.skippedLongLines, bytes: r.bytes, counts,
      maxRssKiB: peakRssKiB() }));`;
  const loader = built ? [] : ['--import', 'tsx'];
  return [...loader, '--input-type=module', '-e', script];
}

const runtimeNote = () =>
  existsSync(fileURLToPath(new URL('../dist/bitbake/consolelog.js', import.meta.url)))
    ? 'built dist/'
    : 'source via tsx, whose loader alone adds ~30 MiB: run `npm run bench`';

export default async function benchRecords(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'rambake-bench-records-'));
  try {
    const buildDir = join(dir, 'buildstats', '20251130142627');
    const written = writeBuildstats(buildDir, 5000);
    const t0 = performance.now();
    const build = await readBuildstatsBuild(buildDir);
    const ms = performance.now() - t0;
    if (build.tasks.length !== written)
      throw new Error(`read ${build.tasks.length} of ${written} task files`);
    rows.push({
      bench: 'records',
      metric: `buildstats folder, ${written} task files`,
      value: Math.round(ms),
      unit: 'ms',
      goal: '< 2000 ms',
      ok: ms < 2000,
    });

    const megabytes = Number(process.env.RAMBAKE_BENCH_LOG_MB ?? 1024);
    const log = join(dir, 'console.log');
    const bytes = writeConsoleLog(log, megabytes);
    const wc0 = performance.now();
    await execa('wc', ['-l', log]);
    const wcMs = performance.now() - wc0;
    const child = await execa(process.execPath, childArgs(log), {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    const result = JSON.parse(child.stdout) as {
      ms: number;
      bytes: number;
      skipped: number;
      maxRssKiB: number;
    };
    if (result.bytes !== bytes) throw new Error(`streamed ${result.bytes} of ${bytes} bytes`);
    const mbPerS = bytes / 1024 / 1024 / (result.ms / 1000);
    const rssMiB = result.maxRssKiB / 1024;
    rows.push({
      bench: 'records',
      metric: `console log ${megabytes} MiB, throughput (${result.skipped} overlong lines skipped)`,
      value: Math.round(mbPerS),
      unit: 'MiB/s',
      // The reference is `wc -l` on the same (cached) file, also in MiB/s; ratio = our speed / its.
      reference: Math.round(bytes / 1024 / 1024 / (wcMs / 1000)),
      ratio: Number((wcMs / result.ms).toFixed(3)),
      goal: 'information: speed vs `wc -l`',
    });
    rows.push({
      bench: 'records',
      metric: `console log, peak RSS of the reading process (${runtimeNote()})`,
      value: Math.round(rssMiB),
      unit: 'MiB',
      goal: '< 100 MiB',
      ok: rssMiB < 100,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
