// An in-memory ConfIO for tests: files by absolute path; folders are implied by the paths.
import type { ConfIO } from '../../src/bitbake/conf/types.js';

export function memoryConfIO(files: Record<string, string>): ConfIO {
  const dirs = new Set<string>();
  for (const f of Object.keys(files)) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/') || '/');
  }
  return {
    readFile: (p) => files[p],
    isFile: (p) => p in files,
    isDir: (p) => dirs.has(p.replace(/\/+$/, '')),
  };
}
