// The real file system for the conf reader: the only file here that touches fs.

import * as fs from 'node:fs';
import { ConfSyntaxError } from '../../errors.js';
import type { ConfIO } from './types.js';

export const nodeConfIO: ConfIO = {
  readFile(path: string): string | undefined {
    try {
      return fs.readFileSync(path, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw new ConfSyntaxError(path, undefined, `cannot read: ${(err as Error).message}`);
    }
  },
  isFile(path: string): boolean {
    return fs.statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  },
  isDir(path: string): boolean {
    return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  },
};
