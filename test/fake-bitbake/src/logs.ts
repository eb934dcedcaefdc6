// The cooker console log and the event log (bitbake-formats.md §9).

import fs from 'node:fs';
import path from 'node:path';
import { formatConfigLine } from './formats.js';
import { appendQuietly } from './taskio.js';
import type { FakeConfig, Scenario } from './types.js';

export interface ConsoleLog {
  path: string;
  /** Appends one line to the file and hands it to the terminal sink. */
  line(text: string): void;
  /** Progress text without a newline, glued before the next line (as knotty leaves it). */
  progress(text: string): void;
}

export function openConsoleLog(cfg: FakeConfig, datetime: string, sink: (l: string) => void): ConsoleLog {
  const dir = cfg.consoleLogDir;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${datetime}.log`);
  fs.writeFileSync(file, '');
  const latest = path.join(dir, 'console-latest.log');
  fs.rmSync(latest, { force: true });
  fs.symlinkSync(`${datetime}.log`, latest);
  let pending = '';
  return {
    path: file,
    line(text) {
      appendQuietly(file, `${pending}${text}\n`);
      sink(`${pending}${text}`);
      pending = '';
    },
    progress(text) {
      pending += text;
    },
  };
}

/** The header knotty prints before any task: cache, parsing, Build Configuration. */
export function writeConsoleHeader(log: ConsoleLog, cfg: FakeConfig, scenario: Scenario): void {
  const targets = Math.round(scenario.bbFiles * 2.1);
  log.line('Loading cache...done.');
  log.line(`Loaded ${targets} entries from dependency cache.`);
  log.line(
    `Parsing of ${scenario.bbFiles} .bb files complete (${scenario.bbFiles} cached, 0 parsed). ${targets} targets, 42 skipped, 0 masked, 0 errors.`,
  );
  log.line('NOTE: Resolving any missing task queue dependencies');
  log.line('');
  log.line('Build Configuration:');
  const v = (n: string, d: string) => cfg.vars[n] ?? d;
  log.line(formatConfigLine('BB_VERSION', '2.16.0'));
  log.line(formatConfigLine('BUILD_SYS', 'x86_64-linux'));
  log.line(formatConfigLine('NATIVELSBSTRING', 'universal'));
  log.line(formatConfigLine('TARGET_SYS', 'x86_64-poky-linux'));
  log.line(formatConfigLine('MACHINE', cfg.machine));
  log.line(formatConfigLine('DISTRO', cfg.distro));
  log.line(formatConfigLine('DISTRO_VERSION', v('DISTRO_VERSION', '5.3')));
  log.line(formatConfigLine('TUNE_FEATURES', 'm64 core2'));
  log.line(formatConfigLine('TARGET_FPU', ''));
  const layers = cfg.layers.length > 0 ? cfg.layers : [{ name: 'meta', path: '' }];
  for (const l of layers)
    log.line(formatConfigLine(l.name, 'master:0f5ed3a8cb8b47b1b1a7cf3a8b5e4ad3bb5b1c5e'));
  log.line('');
}

/** A base64 blob standing in for a pickled event (not readable from Node in real logs either). */
function eventLine(cls: string, rnd: () => number): string {
  const bytes = Buffer.alloc(48 + Math.floor(rnd() * 200));
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rnd() * 256);
  return `${JSON.stringify({ class: cls, vars: bytes.toString('base64') })}\n`;
}

const EARLY_EVENTS = [
  'bb.event.MetadataEvent',
  'bb.event.ConfigParsed',
  'bb.event.RecipePreFinalise',
  'bb.event.ParseStarted',
  'bb.event.ParseProgress',
  'bb.event.ParseCompleted',
  'bb.event.CacheLoadStarted',
  'bb.event.CacheLoadCompleted',
  'bb.event.TreeDataPreparationStarted',
  'bb.event.TreeDataPreparationProgress',
  'bb.event.TreeDataPreparationCompleted',
  'bb.event.DepTreeGenerated',
  'bb.event.BuildInit',
  'bb.event.BuildStarted',
];

/**
 * Writes the event log's early lines, then the `allvariables` line; returns its path. Like
 * BitBake's cooker, the datastore then also holds BUILDNAME and BB_CMDLINE: a Python list that
 * the cooker writes as `str(v)`, its repr (`['/srv/poky/bitbake/bin/bitbake', 'zlib']`, as the
 * real BitBake 2.15.2 wrote it).
 */
export function writeEventLogStart(
  cfg: FakeConfig,
  datetime: string,
  rnd: () => number,
  build: { name: string; cmdline: string[] },
): string {
  const dir = cfg.eventLogDir;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${datetime}.json`);
  let out = '';
  for (let i = 0; i < 47; i++) out += eventLine(EARLY_EVENTS[i % EARLY_EVENTS.length]!, rnd);
  const all: Record<string, { v: string | string[]; history: unknown[] }> = {};
  for (const [name, value] of Object.entries(cfg.vars)) {
    const o = cfg.varOrigins[name];
    const history = o?.file
      ? [{ variable: name, file: o.file, line: o.line ?? 0, op: 'set', detail: value }]
      : [];
    all[name] = { v: value, history };
  }
  all.BUILDNAME = { v: build.name, history: [] };
  all.BB_CMDLINE = { v: pythonListRepr(build.cmdline), history: [] };
  out += `${JSON.stringify({ allvariables: all })}\n`;
  fs.writeFileSync(file, out);
  return file;
}

export function appendEvent(file: string, cls: string, rnd: () => number): void {
  appendQuietly(file, eventLine(cls, rnd));
}

/** Python's repr of a str: single quotes unless it holds ' and no ", backslash escapes. */
function pythonStrRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    if (ch === '\\' || ch === q) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else out += ch;
  }
  return q + out + q;
}

function pythonListRepr(items: readonly string[]): string {
  return `[${items.map(pythonStrRepr).join(', ')}]`;
}
