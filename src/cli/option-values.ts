// Parsers for option values, given to commander through the option table (options.ts): a bad
// value is commander's usage error (exit 2) naming the option, before any command runs.

import { parseMemSize } from '../system/tmpfs-size.js';
import { InvalidArgumentError } from './commander.js';

/** A whole number ≥ `min`: --threads, --builds, --cpus. */
export function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`expected a whole number, ${min} or more`);
    return n;
  };
}

/** A number greater than `above` and at most `max`: seconds for --interval, --seconds. */
export function decimal(above: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n <= above || n > max)
      throw new InvalidArgumentError(`expected a number of seconds above ${above} and at most ${max}`);
    return n;
  };
}

/** `32g`, `32G`, `32GiB`, `32GB` (binary, as tmpfs reads it), `512m`, or bare bytes → bytes. */
export function byteSize(value: string): number {
  const normal = value.trim().replace(/i?b$/i, '');
  let bytes = 0;
  try {
    bytes = parseMemSize(normal === '' ? value : normal);
  } catch {
    // refused below
  }
  if (!(bytes > 0)) throw new InvalidArgumentError('expected a size such as 16g, 512m or 32GiB');
  return bytes;
}
