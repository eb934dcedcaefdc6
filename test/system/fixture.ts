import { readFileSync } from 'node:fs';

/** Text of a file under test/fixtures/system/. */
export const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/system/${name}`, import.meta.url), 'utf8');
