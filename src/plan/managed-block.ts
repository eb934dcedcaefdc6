// The one block of settings rambake owns inside a conf file. Pure text in, text out.
//
// Revert must give back the user's file byte for byte, even after edits outside the block, so
// the block carries everything needed to cut it out again: it uses the file's own line ending,
// it is appended after the last line, and when that line had no line break the block says so on
// its first inner line (the break rambake added goes away with it). The end marker holds a
// sha256 of the inner lines, so a hand edit is detected instead of overwritten.

import { createHash } from 'node:crypto';
import type { ConfIO } from '../bitbake/conf/types.js';
import { UnsafeEditError } from '../errors.js';

export const BLOCK_BEGIN = '# >>> rambake managed block: do not edit by hand (rambake revert removes it) >>>';
/** First inner line when rambake had to end the user's last line before the block. */
export const ADDED_BREAK_NOTE = '# (rambake ended the line above: the file had no final line break)';
// `# <<< rambake managed block (sha256:9f86…) <<<` → hex `9f86…`
const END_RE = /^# <<< rambake managed block \(sha256:([0-9a-f]{64})\) <<<$/;

export type Eol = '\n' | '\r\n';

export interface FoundBlock {
  /** Offset of the begin marker's first character. */
  start: number;
  /** Offset just past the end marker's line break (or the end of the text). */
  end: number;
  /** The settings between the markers, without the added-break note, without line endings. */
  lines: string[];
  /** rambake added a line break before the block (the note is present). */
  addedBreak: boolean;
  /** The end marker's checksum matches the inner lines. */
  intact: boolean;
  eol: Eol;
}

/** The file's line ending: the first one found; LF for a file without any. */
export function detectEol(text: string): Eol {
  const lf = text.indexOf('\n');
  return lf > 0 && text[lf - 1] === '\r' ? '\r\n' : '\n';
}

/** sha256 over the inner lines joined by LF, so the checksum does not depend on line endings. */
export function blockChecksum(inner: readonly string[]): string {
  return createHash('sha256').update(inner.join('\n')).digest('hex');
}

/**
 * Lines that must never be in the block (bitbake-formats.md §2-3): BASE_WORKDIR is in task
 * hashes (rewriting it misses sstate everywhere); `TMPDIR ?=` does nothing after bitbake.conf;
 * `inherit` is not valid in a .conf. A plan that holds one is a bug, not a user error.
 */
export function checkBlockLines(lines: readonly string[]): void {
  for (const line of lines) {
    // `BASE_WORKDIR = "/x"` → refused; `TMPDIR ?= "/x"` → refused
    if (
      /^(export\s+)?BASE_WORKDIR\b/.test(line) ||
      /^TMPDIR\s*\?\??=/.test(line) ||
      /^inherit\s/.test(line)
    ) {
      throw new Error(`refusing to write "${line}" into the managed block`);
    }
  }
}

export function renderBlock(lines: readonly string[], eol: Eol, addedBreak: boolean): string {
  for (const line of lines) {
    if (/[\r\n]/.test(line))
      throw new Error(`managed block line holds a line break: ${JSON.stringify(line)}`);
  }
  const inner = addedBreak ? [ADDED_BREAK_NOTE, ...lines] : [...lines];
  const end = `# <<< rambake managed block (sha256:${blockChecksum(inner)}) <<<`;
  return [BLOCK_BEGIN, ...inner, end].map((l) => l + eol).join('');
}

interface RawLine {
  text: string;
  start: number;
  /** Offset just past this line's '\n' (or the text's end). */
  next: number;
}

function splitRawLines(text: string): RawLine[] {
  const lines: RawLine[] = [];
  let start = 0;
  while (start < text.length) {
    const lf = text.indexOf('\n', start);
    const next = lf < 0 ? text.length : lf + 1;
    const raw = text.slice(start, lf < 0 ? text.length : lf);
    lines.push({ text: raw.endsWith('\r') ? raw.slice(0, -1) : raw, start, next });
    start = next;
  }
  return lines;
}

/**
 * The managed block, if any: the last begin marker that a valid end marker follows, closed by
 * the first such end marker. Marker look-alikes in user text (a begin with no end, an end
 * before any begin) are left alone.
 */
export function findBlock(text: string): FoundBlock | undefined {
  const lines = splitRawLines(text);
  for (let b = lines.length - 1; b >= 0; b--) {
    if (lines[b]!.text !== BLOCK_BEGIN) continue;
    for (let e = b + 1; e < lines.length; e++) {
      const m = END_RE.exec(lines[e]!.text);
      if (!m) continue;
      const inner = lines.slice(b + 1, e).map((l) => l.text);
      const addedBreak = inner[0] === ADDED_BREAK_NOTE;
      const beginLine = text.slice(lines[b]!.start, lines[b]!.next);
      return {
        start: lines[b]!.start,
        end: lines[e]!.next,
        lines: addedBreak ? inner.slice(1) : inner,
        addedBreak,
        intact: blockChecksum(inner) === m[1],
        eol: beginLine.endsWith('\r\n') ? '\r\n' : '\n',
      };
    }
  }
  return undefined;
}

// Any end marker, its checksum intact or not: `# <<< rambake managed block (sha256:…) <<<`.
const END_LOOSE_RE = /^# <<< rambake managed block\b/;

/**
 * What is wrong with the markers, or undefined. Two complete blocks (a copied block) are always
 * wrong: the second would stay behind. A lone begin or end marker may be text a user pasted
 * (left alone), unless rambake knows it wrote a block here (`expectBlock`: state.json names
 * this file): then a deleted marker would make the block invisible — revert would say "no
 * managed block" and its TMPDIR line would stay.
 * Example: (two blocks) → '2 complete blocks (one copied by hand)'.
 */
export function markerProblem(text: string, opts: { expectBlock?: boolean } = {}): string | undefined {
  const lines = splitRawLines(text);
  const begins = lines.filter((l) => l.text === BLOCK_BEGIN).length;
  const ends = lines.filter((l) => END_RE.test(l.text)).length;
  if (begins >= 2 && ends >= 2) return `${Math.min(begins, ends)} complete blocks (one copied by hand)`;
  if (!opts.expectBlock || findBlock(text)) return undefined;
  if (begins > 0) return 'a begin marker without its end marker';
  if (ends > 0 || lines.some((l) => END_LOOSE_RE.test(l.text)))
    return 'an end marker without its begin marker';
  return undefined;
}

function refuseDamagedMarkers(text: string, opts: { force?: boolean; expectBlock?: boolean }): void {
  const problem = opts.force ? undefined : markerProblem(text, opts);
  if (problem !== undefined) {
    throw new UnsafeEditError(`the rambake managed block's markers were edited by hand: ${problem}`, {
      hint: 'put the block back as rambake wrote it (or remove it and its TMPDIR line yourself), or pass --force',
    });
  }
}

/** Does the last line end in `\`, so that BitBake would glue the block's first line onto it? */
function endsInContinuation(text: string): boolean {
  return /\\\r?\n?$/.test(text);
}

export interface BlockEdit {
  text: string;
  changed: boolean;
  /** A block was there and did not match its checksum (replaced only with force). */
  handEdited: boolean;
}

/**
 * Puts `lines` in the managed block: replaces an existing block in place (so text the user
 * added after it stays after it), else appends one. Same lines twice → same text.
 */
export function insertBlock(
  text: string,
  lines: readonly string[],
  opts: { force?: boolean; expectBlock?: boolean } = {},
): BlockEdit {
  refuseDamagedMarkers(text, opts);
  const found = findBlock(text);
  if (found) {
    if (!found.intact && !opts.force) {
      throw new UnsafeEditError('the rambake managed block was edited by hand', {
        hint: 'move your changes outside the block, or pass --force to overwrite them',
      });
    }
    const block = renderBlock(lines, found.eol, found.addedBreak);
    const next = text.slice(0, found.start) + block + text.slice(found.end);
    return { text: next, changed: next !== text, handEdited: !found.intact };
  }
  if (endsInContinuation(text)) {
    throw new UnsafeEditError(
      'the conf file ends with a line continuation ("\\"): BitBake would join it to the block',
      {
        hint: 'finish or remove that last line first',
      },
    );
  }
  const eol = detectEol(text);
  const addedBreak = text !== '' && !text.endsWith('\n');
  return {
    text: text + (addedBreak ? eol : '') + renderBlock(lines, eol, addedBreak),
    changed: true,
    handEdited: false,
  };
}

/** Cuts the block out exactly, with the line break rambake added before it, if any. */
export function removeBlock(text: string, opts: { force?: boolean; expectBlock?: boolean } = {}): BlockEdit {
  refuseDamagedMarkers(text, opts);
  const found = findBlock(text);
  if (!found) return { text, changed: false, handEdited: false };
  if (!found.intact && !opts.force) {
    throw new UnsafeEditError('the rambake managed block was edited by hand: not removing it', {
      hint: 'look at the block, then pass --force to remove it anyway',
    });
  }
  let start = found.start;
  // Text the user added after the block needs that break to stay on its own line.
  if (found.addedBreak && found.end === text.length) {
    if (text.slice(0, start).endsWith(found.eol)) start -= found.eol.length;
    else if (text.slice(0, start).endsWith('\n')) start -= 1;
  }
  return { text: text.slice(0, start) + text.slice(found.end), changed: true, handEdited: !found.intact };
}

/** Lines with their terminators: `a\nb` → [`a\n`, `b`]. */
function diffLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * A unified diff of one contiguous change (what apply and revert make: one block added,
 * replaced or cut out), with 3 lines of context. `undefined` old text is a file to be created.
 */
export function unifiedDiff(
  oldText: string | undefined,
  newText: string,
  oldName: string,
  newName: string,
): string {
  const a = diffLines(oldText ?? '');
  const b = diffLines(newText);
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  if (p === a.length && p === b.length && oldText !== undefined) return '';
  const from = Math.max(0, p - 3);
  const to = Math.min(a.length, a.length - s + 3);
  const body: string[] = [];
  const emit = (mark: string, line: string) => {
    body.push(mark + line.replace(/\n$/, ''));
    if (!line.endsWith('\n')) body.push('\\ No newline at end of file');
  };
  for (const line of a.slice(from, p)) emit(' ', line);
  for (const line of a.slice(p, a.length - s)) emit('-', line);
  for (const line of b.slice(p, b.length - s)) emit('+', line);
  for (const line of a.slice(a.length - s, to)) emit(' ', line);
  const oldCount = to - from;
  const newCount = oldCount - (a.length - s - p) + (b.length - s - p);
  const range = (start: number, count: number) => `${count === 0 ? start : start + 1},${count}`;
  return [
    `--- ${oldText === undefined ? '/dev/null' : oldName}`,
    `+++ ${newName}`,
    `@@ -${range(from, oldCount)} +${range(from, newCount)} @@`,
    ...body,
    '',
  ].join('\n');
}

/** A kas `local_conf_header` entry holding the block's lines (kas rewrites local.conf each run). */
export function renderKasSnippet(lines: readonly string[]): string {
  return ['local_conf_header:', '  rambake: |', ...lines.map((l) => (l === '' ? '' : `    ${l}`)), ''].join(
    '\n',
  );
}

/**
 * The conf files as they were before `rambake apply`: planning reads the build without
 * rambake's own block, so a second plan does not take the block's TMPDIR, rm_work or lowered
 * threads for the user's settings.
 */
export function withoutManagedBlock(io: ConfIO): ConfIO {
  return {
    ...io,
    readFile: (path) => {
      const text = io.readFile(path);
      return text !== undefined && findBlock(text) ? removeBlock(text, { force: true }).text : text;
    },
  };
}
