// Mutations that any file can suffer, whatever its kind: cut short, binary bytes, a very long
// line, an odd encoding, or not a regular file at all (a FIFO, a link to a device or a /proc
// file, a folder, a link loop, gone).

import type { Random } from './random.js';

/** What a mutation leaves at the file's path. */
export type Replacement =
  /** `note`: what was written, for the case's description (the hostile text, shortened). */
  | { kind: 'bytes'; data: Buffer; note?: string }
  | { kind: 'fifo' }
  | { kind: 'link'; to: string }
  | { kind: 'dir' }
  | { kind: 'remove' };

export interface Mutation {
  name: string;
  apply: (rng: Random, data: Buffer) => Replacement;
}

const bytes = (data: Buffer | string): Replacement => ({
  kind: 'bytes',
  data: typeof data === 'string' ? Buffer.from(data) : data,
});

/** Inserts `piece` at a random offset (a line start when `atLine`). */
export function insertAt(rng: Random, data: Buffer, piece: Buffer, atLine = false): Buffer {
  let at = rng.int(0, data.length);
  if (atLine) {
    const nl = data.lastIndexOf(0x0a, at - 1);
    at = nl < 0 ? 0 : nl + 1;
  }
  return Buffer.concat([data.subarray(0, at), piece, data.subarray(at)]);
}

export const BYTE_MUTATIONS: Mutation[] = [
  { name: 'truncated', apply: (r, d) => bytes(d.subarray(0, r.int(0, d.length))) },
  { name: 'empty', apply: () => bytes('') },
  { name: 'binary bytes', apply: (r, d) => bytes(insertAt(r, d, r.bytes(r.int(1, 64)))) },
  { name: 'NUL bytes', apply: (r, d) => bytes(insertAt(r, d, Buffer.alloc(r.int(1, 8)))) },
  { name: 'all binary', apply: (r) => bytes(r.bytes(r.int(1, 4096))) },
  {
    name: 'a long line',
    apply: (r, d) => bytes(insertAt(r, d, Buffer.from(`${'x'.repeat(r.int(5_000, 300_000))}\n`), true)),
  },
  { name: 'UTF-8 BOM', apply: (_r, d) => bytes(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), d])) },
  {
    name: 'UTF-16LE',
    apply: (_r, d) =>
      bytes(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(d.toString('utf8'), 'utf16le')])),
  },
  {
    name: 'Latin-1 bytes',
    apply: (r, d) => bytes(insertAt(r, d, Buffer.from([0xe9, 0xe8, 0xfc, 0xa0, 0xff]))),
  },
  { name: 'CRLF', apply: (_r, d) => bytes(d.toString('latin1').replaceAll('\n', '\r\n')) },
  { name: 'lone CR', apply: (_r, d) => bytes(d.toString('latin1').replaceAll('\n', '\r')) },
  { name: 'no final newline', apply: (_r, d) => bytes(d.subarray(0, Math.max(0, d.length - 1))) },
  {
    name: 'repeated',
    apply: (r, d) => bytes(Buffer.concat(Array.from({ length: r.int(2, 50) }, () => d))),
  },
  { name: 'a FIFO', apply: () => ({ kind: 'fifo' }) },
  { name: 'a link to /dev/zero', apply: () => ({ kind: 'link', to: '/dev/zero' }) },
  { name: 'a link to /proc/self/pagemap', apply: () => ({ kind: 'link', to: '/proc/self/pagemap' }) },
  { name: 'a link to /dev/null', apply: () => ({ kind: 'link', to: '/dev/null' }) },
  { name: 'a folder', apply: () => ({ kind: 'dir' }) },
  { name: 'a link to itself', apply: () => ({ kind: 'link', to: '.self' }) },
  { name: 'a dangling link', apply: () => ({ kind: 'link', to: '/nonexistent/rambake-fuzz' }) },
  { name: 'removed', apply: () => ({ kind: 'remove' }) },
];

/** What a folder can become: not a folder at all, a link loop, a link into the kernel's files. */
export const DIR_MUTATIONS: Mutation[] = [
  { name: 'a file', apply: () => bytes('x\n') },
  { name: 'a FIFO', apply: () => ({ kind: 'fifo' }) },
  { name: 'a link to itself', apply: () => ({ kind: 'link', to: '.self' }) },
  { name: 'a link to /proc/self', apply: () => ({ kind: 'link', to: '/proc/self' }) },
  { name: 'a link to /dev', apply: () => ({ kind: 'link', to: '/dev' }) },
  { name: 'a dangling link', apply: () => ({ kind: 'link', to: '/nonexistent/rambake-fuzz' }) },
  { name: 'removed', apply: () => ({ kind: 'remove' }) },
];

/** A line-based mutation: the text split into lines, changed, joined again. */
export function lineMutation(name: string, change: (rng: Random, lines: string[]) => void): Mutation {
  return {
    name,
    apply: (rng, data) => {
      const lines = data.toString('utf8').split('\n');
      change(rng, lines);
      return bytes(lines.join('\n'));
    },
  };
}

const at = (rng: Random, lines: string[]) => rng.int(0, Math.max(0, lines.length - 1));

/** Line edits that fit any line-oriented file. */
export const LINE_MUTATIONS: Mutation[] = [
  lineMutation('a line deleted', (r, l) => void l.splice(at(r, l), 1)),
  lineMutation('a line doubled', (r, l) => {
    const i = at(r, l);
    l.splice(i, 0, l[i] ?? '');
  }),
  lineMutation('two lines swapped', (r, l) => {
    const i = at(r, l);
    const j = at(r, l);
    [l[i], l[j]] = [l[j] ?? '', l[i] ?? ''];
  }),
  lineMutation('a line cut short', (r, l) => {
    const i = at(r, l);
    l[i] = (l[i] ?? '').slice(0, r.int(0, (l[i] ?? '').length));
  }),
  lineMutation('characters replaced', (r, l) => {
    const i = at(r, l);
    const chars = [...(l[i] ?? '')];
    for (let n = r.int(1, 4); n > 0 && chars.length > 0; n--)
      chars[r.int(0, chars.length - 1)] = r.pick([
        '"',
        "'",
        '$',
        '{',
        '}',
        '\\',
        ':',
        '=',
        '#',
        '\t',
        '@',
        '\u00e9',
        '\u202e',
      ]);
    l[i] = chars.join('');
  }),
];
