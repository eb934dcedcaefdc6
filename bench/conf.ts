// Benchmark of the conf reader: a generated build folder with 20 layers and 5,000 assignments in
// all (local.conf, each layer.conf and an include per layer, every operator used), read with
// readBuildConfig through the real file system; the figure is the median of a few runs.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeConfIO } from '../src/bitbake/conf/node-io.js';
import { readBuildConfig } from '../src/bitbake/conf/reader.js';
import type { BenchRow } from './types.js';

const LAYERS = 20;
const ASSIGNMENTS = 5_000;
const RUNS = 7;
const GOAL_MS = 300;

/** One assignment line; `i` picks the operator so that every one is used. */
function assignment(i: number, prefix: string): string {
  const name = `${prefix}_V${i % 400}`;
  switch (i % 12) {
    case 0:
      return `${name} = "value ${i} \${TOPDIR}"`;
    case 1:
      return `${name} ?= "maybe ${i}"`;
    case 2:
      return `${name} ??= "weak ${i}"`;
    case 3:
      return `${name} := "\${${prefix}_V${(i + 1) % 400}} now"`;
    case 4:
      return `${name} += "more${i}"`;
    case 5:
      return `${name} =+ "front${i}"`;
    case 6:
      return `${name} .= "dot${i}"`;
    case 7:
      return `${name} =. "pre${i}"`;
    case 8:
      return `${name}:append = " app${i}"`;
    case 9:
      return `${name}:remove = "more${i - 5}"`;
    case 10:
      return `${name}:qemux86-64 = "machine ${i}"`;
    default:
      return `${name}[doc] = "flag ${i}"`;
  }
}

function lines(from: number, count: number, prefix: string): string {
  const out: string[] = [];
  for (let i = from; i < from + count; i++) out.push(assignment(i, prefix));
  return `${out.join('\n')}\n`;
}

/** Writes the build; returns TOPDIR. Every layer gets 200 assignments: 100 in layer.conf, 100 in an include. */
function writeBuild(root: string): string {
  const top = join(root, 'build');
  mkdirSync(join(top, 'conf'), { recursive: true });
  const layers: string[] = [];
  const perLayer = 200;
  for (let l = 0; l < LAYERS; l++) {
    const dir = join(root, 'layers', `meta-l${l}`);
    layers.push(dir);
    mkdirSync(join(dir, 'conf'), { recursive: true });
    const head = [
      'BBPATH .= ":${LAYERDIR}"',
      `BBFILE_COLLECTIONS += "l${l}"`,
      `BBFILE_PATTERN_l${l} = "^\${LAYERDIR}/"`,
      `BBFILE_PRIORITY_l${l} = "${l + 1}"`,
      `LAYERSERIES_COMPAT_l${l} = "whinlatter"`,
      l === 0 ? 'LAYERSERIES_CORENAMES = "whinlatter"' : `LAYERDEPENDS_l${l} = "l0"`,
      `include conf/l${l}-settings.inc`,
    ].join('\n');
    writeFileSync(join(dir, 'conf', 'layer.conf'), `${head}\n${lines(0, perLayer / 2, `L${l}`)}`);
    writeFileSync(join(dir, 'conf', `l${l}-settings.inc`), lines(perLayer / 2, perLayer / 2, `L${l}`));
  }
  writeFileSync(
    join(top, 'conf', 'bblayers.conf'),
    `BBPATH = "\${TOPDIR}"\nBBLAYERS = "${layers.join(' ')}"\n`,
  );
  const rest = ASSIGNMENTS - LAYERS * perLayer;
  writeFileSync(join(top, 'conf', 'local.conf'), `MACHINE = "qemux86-64"\n${lines(0, rest, 'LOCAL')}`);
  return top;
}

export default async function (): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'rambake-bench-conf-'));
  try {
    const top = writeBuild(root);
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      const config = readBuildConfig(top, nodeConfIO);
      // Read a few values so lazy work (overrides, expansion) is part of the figure.
      for (const name of ['TMPDIR', 'LOCAL_V3', 'L7_V10', 'BBPATH']) config.data.getVar(name);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    return [
      {
        bench: 'conf',
        kind: 'measured',
        metric: `read ${LAYERS} layers / ${ASSIGNMENTS.toLocaleString('en')} assignments`,
        value: Math.round(median * 10) / 10,
        unit: 'ms',
        goal: `< ${GOAL_MS} ms`,
        ok: median < GOAL_MS,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
