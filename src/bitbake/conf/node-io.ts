// The real file system for the conf reader: the only file here that touches fs. Reads go
// through the one bounded reader (system/read-file.ts): a FIFO, a device or a /proc file named
// by an include is refused, not read.

import * as fs from 'node:fs';
import { ConfSyntaxError, RefusedFileError } from '../../errors.js';
import { readTextSync } from '../../system/read-file.js';
import type { ConfIO } from './types.js';

export const nodeConfIO: ConfIO = {
  readFile(path: string): string | undefined {
    try {
      return readTextSync(path, 'conf');
    } catch (err) {
      if (err instanceof RefusedFileError) throw err;
      throw new ConfSyntaxError(path, undefined, `cannot read: ${(err as Error).message}`);
    }
  },
  // BitBake's include search (bb.utils.which) takes any existing path: a FIFO or a device named
  // `local.conf` is found, and then refused when read, rather than skipped in silence.
  isFile(path: string): boolean {
    const st = fs.statSync(path, { throwIfNoEntry: false });
    return st !== undefined && !st.isDirectory();
  },
  isDir(path: string): boolean {
    return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  },
};
