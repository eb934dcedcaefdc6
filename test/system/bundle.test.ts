// What `rambake` runs is dist/bin/ (scripts/bundle.mjs): one entry, chunks loaded on demand,
// and the scanner's worker beside them, with the packages bundled in. The worker is found from the
// chunk's own URL, and a scan whose walk does not last never starts it, so a worker missing
// from the bundle would only show on a big tree with no usable find. Here the walkers start
// first and a worker gets the root: the scan fails if the bundled worker cannot load. (`npm
// test` builds dist/ first.)

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { scanTree as ScanTree } from '../../src/system/du.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { CLI, ROOT, runRambake, tempDir } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();
const BIN = join(ROOT, 'dist', 'bin');

describe('the bundled binary', () => {
  it("starts the scanner's worker thread from beside its chunk, and counts as du does", async () => {
    const chunk = readdirSync(BIN).find(
      (f) => f.startsWith('chunk-') && readFileSync(join(BIN, f), 'utf8').includes('./du-worker.js'),
    );
    expect(chunk, 'a chunk of dist/bin/ starts ./du-worker.js').toBeDefined();
    const { scanTree } = (await import(pathToFileURL(join(BIN, chunk!)).href)) as {
      scanTree: typeof ScanTree;
    };
    const tree = tempDir('rambake-bundle-');
    cleanups.push(tree.cleanup);
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(tree.path, `d${d}`, 'sub'), { recursive: true });
      for (let f = 0; f < 10; f++)
        writeFileSync(join(tree.path, `d${d}`, 'sub', `f${f}`), 'x'.repeat(f * 700));
    }
    const scan = await scanTree(tree.path, { workers: 1, workersFirst: true, engine: 'threads' });
    const du = Number((await execa('du', ['-sB1', tree.path])).stdout.split('\t')[0]);
    expect(scan.errors).toEqual([]);
    expect(scan.bytes).toBe(du);
  });

  it("imports only Node's own modules and its own chunks, and every chunk links", async () => {
    const files = readdirSync(BIN).filter((f) => f.endsWith('.js'));
    const specifiers = new Set<string>();
    for (const f of files)
      for (const m of readFileSync(join(BIN, f), 'utf8').matchAll(
        /^\s*(?:import|export)\b(?:[^'"]*?from)?\s*["']([^"']+)["']/gm,
      ))
        specifiers.add(m[1]!);
    expect([...specifiers].filter((s) => !s.startsWith('node:') && !s.startsWith('./'))).toEqual([]);
    // The banner that gives bundled CommonJS its `require` is in every chunk: a module of
    // rambake declaring the same name at its top level would stop that chunk from linking.
    const chunks = files.filter((f) => f.startsWith('chunk-'));
    const imports = chunks.map((f) => `await import(${JSON.stringify(pathToFileURL(join(BIN, f)).href)});`);
    const linked = await execa(process.execPath, ['--input-type=module', '-e', imports.join('\n')], {
      reject: false,
    });
    expect(linked.stderr).toBe('');
    expect(linked.exitCode).toBe(0);
  });

  it('loads no child_process for --version or --help: commander asks for it only for executable subcommands', async () => {
    const probe = tempDir('rambake-bundle-probe-');
    cleanups.push(probe.cleanup);
    const preload = join(probe.path, 'probe.mjs');
    writeFileSync(
      preload,
      "process.on('exit', () => process.stderr.write(`loaded:${process.moduleLoadList.includes('NativeModule child_process')}`));\n",
    );
    const r = await execa(process.execPath, ['--import', pathToFileURL(preload).href, CLI, '--version'], {
      reject: false,
    });
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+$/);
    expect(r.stderr).toBe('loaded:false');
    // Help registers every command, and no command's work (execa among it) loads for that.
    const help = await execa(process.execPath, ['--import', pathToFileURL(preload).href, CLI, '--help'], {
      reject: false,
    });
    expect(help.stdout).toContain('ci-ramdisk');
    expect(help.stderr).toBe('loaded:false');
    // The probe sees it where it is loaded: plan runs processes (execa). Its exit code is the
    // verdict (1: does not fit this machine).
    const plan = await execa(
      process.execPath,
      [
        '--import',
        pathToFileURL(preload).href,
        CLI,
        '-B',
        join(ROOT, 'examples', 'build'),
        '--no-bitbake',
        'plan',
        '--json',
      ],
      { reject: false },
    );
    expect(plan.stdout).toContain('"verdict"');
    expect(plan.stderr).toBe('loaded:true');
  });

  it('runs as the package bin says, with templates/ found from its chunks', async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { rambake: string } };
    expect(join(ROOT, pkg.bin.rambake)).toBe(CLI);
    expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const script = await runRambake(['ci-ramdisk', '--size', '4g', '--path', '/tmp/ci-ram']);
    expect(script.exitCode).toBe(0);
    expect(script.stdout).toContain('mount -t tmpfs');
  });
});
