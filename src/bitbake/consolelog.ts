// The cooker console log (`${LOG_DIR}/cooker/${MACHINE}/<DATETIME>.log`) as typed events.
// Traps handled here: progress text written without a newline lands in front of the next
// message ("Initialising tasks...Sstate summary: …", "…done.NOTE: Executing Tasks"), so
// markers are searched anywhere in a line; in the `Build Configuration:` block a layer that
// shares its branch:revision with the next layer is printed as a bare name, and takes the
// value of the next layer line that has one.

import { type ReadLinesOptions, type ReadLinesResult, readLines } from './lines.js';

export type LogLevel = 'DEBUG' | 'NOTE' | 'WARNING' | 'ERROR' | 'CRITICAL';

interface At {
  /** 1-based line number in the log. */
  lineNo: number;
  /** Progress text that had no newline and so stands in front of this event on its line. */
  progress?: string;
}

/** `Sstate summary: Wanted 42 Local 40 Mirrors 0 Missed 2 Current 100 (95% match, 98% complete)` */
export interface SstateSummary {
  wanted: number;
  local: number;
  mirrors: number;
  missed: number;
  current: number;
  matchPercent: number;
  completePercent: number;
}

export type ConsoleEvent = At &
  (
    | { kind: 'task-run'; mode: 'normal' | 'setscene' | 'noexec'; index: number; total: number; tid: string }
    | { kind: 'recipe-task'; pf: string; task: string; state: 'Started' | 'Succeeded' | 'Failed' }
    | { kind: 'setscene-completed' }
    | ({ kind: 'sstate-summary' } & SstateSummary)
    | { kind: 'tasks-summary'; attempted: number; notRerun: number; failed: number }
    | { kind: 'failure-logfile'; path: string }
    | { kind: 'task-failed'; tid: string; exitCode: number }
    | { kind: 'setscene-failed'; tid: string; exitCode: number }
    | { kind: 'build-config'; name: string; value: string }
    | { kind: 'layer'; name: string; branch: string; revision: string }
    /** Any other `LEVEL: text`; `pf`/`task` when a task wrote it (`<PF> <do_x>: text`). */
    | { kind: 'message'; level: LogLevel; text: string; pf?: string; task?: string }
    /** A line with no level: headers, plain task output. */
    | { kind: 'text'; text: string }
  );

export type ConsoleEventKind = ConsoleEvent['kind'];

// 'NOTE: Running setscene task 11 of 12 (/l/zlib_1.3.1.bb:do_package_setscene)' → setscene, 11, 12, tid
const RUNNING = /^Running (?:(setscene|noexec) )?task (\d+) of (\d+) \((.+)\)$/;
// 'NOTE: recipe zlib-1.3.1-r0: task do_compile: Succeeded' → pf, do_compile, Succeeded
const RECIPE_TASK = /^recipe (\S+): task (do_\S+): (Started|Succeeded|Failed)$/;
// 'Sstate summary: Wanted 42 Local 3 Mirrors 0 Missed 39 Current 7 (7% match, 20% complete)'
const SSTATE =
  /Sstate summary: Wanted (\d+) Local (\d+) Mirrors (\d+) Missed (\d+) Current (\d+) \(([\d.]+)% match, ([\d.]+)% complete\)/;
// "Tasks Summary: Attempted 30 tasks of which 25 didn't need to be rerun and 1 failed."
const TASKS_SUMMARY =
  /^Tasks Summary: Attempted (\d+) tasks of which (\d+) didn't need to be rerun and (?:all succeeded|(\d+) failed)\.?$/;
// "Task (/l/zlib_1.3.1.bb:do_compile) failed with exit code '1'"
const TASK_FAILED = /^Task \((.+)\) failed with exit code '(-?\d+)'$/;
// "Setscene task (/l/zlib_1.3.1.bb:do_package_setscene) failed with exit code '1' - real task will be run instead"
const SETSCENE_FAILED = /^Setscene task \((.+)\) failed with exit code '(-?\d+)'/;
// 'zlib-1.3.1-r0 do_compile: oe_runmake failed' → pf, task, text
const FROM_TASK = /^(\S+) (do_\w+): ([\s\S]*)$/;
// 'MACHINE              = "qemux86-64"' → name, value; 'meta                 ' → bare layer name
const CONFIG_LINE = /^(\S+)\s*(?:= "(.*)")?\s*$/;
// 'NOTE: text' or 'Initialising tasks...done.NOTE: text' — the level marker at the start or
// right after progress text; not after a blank, so a failed task's log dump
// ('| DEBUG: Executing shell function do_compile') stays plain text.
const LEVEL_MARKER = /(?:^|[^\s\w|])(DEBUG|NOTE|WARNING|ERROR|CRITICAL): /;

/**
 * Stateful line-by-line parser: feed lines in order with `push`, call `end` at the end of the
 * file (it flushes layer names still waiting for a value).
 */
export class ConsoleLogParser {
  private lineNo = 0;
  private inConfig = false;
  private pendingLayers: { name: string; lineNo: number }[] = [];

  push(line: string, onEvent: (event: ConsoleEvent) => void): void {
    const lineNo = ++this.lineNo;
    if (this.inConfig) {
      if (this.pushConfigLine(line, lineNo, onEvent)) return;
    } else if (line.endsWith('Build Configuration:')) {
      this.inConfig = true;
      return;
    }
    onEvent(parseConsoleLine(line, lineNo));
  }

  end(onEvent: (event: ConsoleEvent) => void): void {
    this.flushLayers('', '', onEvent);
    this.inConfig = false;
  }

  // True when the line belonged to the block. The block ends at its first blank line.
  private pushConfigLine(line: string, lineNo: number, onEvent: (event: ConsoleEvent) => void): boolean {
    const m = line.trim() === '' ? null : CONFIG_LINE.exec(line);
    if (!m) {
      this.end(onEvent);
      return line.trim() === '';
    }
    const name = m[1]!;
    const value = m[2];
    if (/^[A-Z][A-Z0-9_]*$/.test(name)) {
      if (value === undefined) return false;
      onEvent({ kind: 'build-config', name, value, lineNo });
      return true;
    }
    if (value === undefined) {
      this.pendingLayers.push({ name, lineNo });
      return true;
    }
    // Git branch names cannot hold ':', so the first ':' separates branch and revision.
    const colon = value.indexOf(':');
    const branch = colon < 0 ? value : value.slice(0, colon);
    const revision = colon < 0 ? '' : value.slice(colon + 1);
    this.flushLayers(branch, revision, onEvent);
    onEvent({ kind: 'layer', name, branch, revision, lineNo });
    return true;
  }

  private flushLayers(branch: string, revision: string, onEvent: (event: ConsoleEvent) => void): void {
    for (const { name, lineNo } of this.pendingLayers)
      onEvent({ kind: 'layer', name, branch, revision, lineNo });
    this.pendingLayers = [];
  }
}

/**
 * Classifies one line outside the Build Configuration block (that block needs the state kept
 * by ConsoleLogParser). Every line gives exactly one event; unknown lines are `text`.
 */
export function parseConsoleLine(line: string, lineNo = 1): ConsoleEvent {
  // The summary is printed without a level and often after progress text on the same line.
  const sstateAt = line.indexOf('Sstate summary:');
  if (sstateAt >= 0) {
    const m = SSTATE.exec(line.slice(sstateAt));
    if (m) {
      const [wanted, local, mirrors, missed, current, match, complete] = m.slice(1).map(Number) as number[];
      const event: ConsoleEvent = {
        kind: 'sstate-summary',
        wanted: wanted!,
        local: local!,
        mirrors: mirrors!,
        missed: missed!,
        current: current!,
        matchPercent: match!,
        completePercent: complete!,
        lineNo,
      };
      // A NOTE: level may precede it; anything else in front is progress text.
      const before = line.slice(0, sstateAt).replace(/NOTE: $/, '');
      if (before !== '') event.progress = before;
      return event;
    }
  }
  const marker = line.includes(': ') ? LEVEL_MARKER.exec(line) : null;
  if (!marker) {
    return { kind: 'text', text: line, lineNo };
  }
  const level = marker[1] as LogLevel;
  const text = line.slice(marker.index + marker[0].length);
  const progress = line.slice(0, marker.index + marker[0].length - marker[1]!.length - 2);
  const event = classifyMessage(level, text, lineNo);
  if (progress !== '') event.progress = progress;
  return event;
}

function classifyMessage(level: LogLevel, text: string, lineNo: number): ConsoleEvent {
  let m: RegExpExecArray | null = null;
  if (level === 'NOTE') {
    m = RUNNING.exec(text);
    if (m) {
      const mode = (m[1] ?? 'normal') as 'normal' | 'setscene' | 'noexec';
      return { kind: 'task-run', mode, index: Number(m[2]), total: Number(m[3]), tid: m[4]!, lineNo };
    }
    m = RECIPE_TASK.exec(text);
    if (m) {
      const state = m[3] as 'Started' | 'Succeeded' | 'Failed';
      return { kind: 'recipe-task', pf: m[1]!, task: m[2]!, state, lineNo };
    }
    if (text === 'Setscene tasks completed') return { kind: 'setscene-completed', lineNo };
    m = TASKS_SUMMARY.exec(text);
    if (m) {
      const failed = m[3] === undefined ? 0 : Number(m[3]);
      return { kind: 'tasks-summary', attempted: Number(m[1]), notRerun: Number(m[2]), failed, lineNo };
    }
  } else if (level === 'ERROR') {
    if (text.startsWith('Logfile of failure stored in: '))
      return {
        kind: 'failure-logfile',
        path: text.slice('Logfile of failure stored in: '.length).trim(),
        lineNo,
      };
    m = TASK_FAILED.exec(text);
    if (m) return { kind: 'task-failed', tid: m[1]!, exitCode: Number(m[2]), lineNo };
  } else if (level === 'WARNING') {
    m = SETSCENE_FAILED.exec(text);
    if (m) return { kind: 'setscene-failed', tid: m[1]!, exitCode: Number(m[2]), lineNo };
  }
  m = FROM_TASK.exec(text);
  if (m) return { kind: 'message', level, text: m[3]!, pf: m[1]!, task: m[2]!, lineNo };
  return { kind: 'message', level, text, lineNo };
}

/** All events of a log held in memory (tests, small logs); big logs go through `readConsoleLog`. */
export function parseConsoleLog(lines: Iterable<string>): ConsoleEvent[] {
  const events: ConsoleEvent[] = [];
  const parser = new ConsoleLogParser();
  const push = (e: ConsoleEvent) => {
    events.push(e);
  };
  for (const line of lines) parser.push(line, push);
  parser.end(push);
  return events;
}

/**
 * Streams a console log through the parser with constant memory; lines longer than
 * `maxLineBytes` (1 MiB by default) are skipped and counted, never buffered.
 */
export async function readConsoleLog(
  path: string,
  onEvent: (event: ConsoleEvent) => void,
  options: ReadLinesOptions = {},
): Promise<ReadLinesResult> {
  const parser = new ConsoleLogParser();
  const result = await readLines(path, (line) => parser.push(line, onEvent), options);
  parser.end(onEvent);
  return result;
}
