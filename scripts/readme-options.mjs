#!/usr/bin/env node
// Rewrites the README's options table from src/cli/options.ts (run `npm run build` first).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionsMarkdown } from '../dist/cli/options.js';

const file = join(import.meta.dirname, '..', 'README.md');
const text = readFileSync(file, 'utf8');
const next = text.replace(
  /(<!-- options:begin -->\n)[\s\S]*?(<!-- options:end -->)/,
  (_all, begin, end) => `${begin}${optionsMarkdown()}\n${end}`,
);
if (next === text) console.log('README options table is up to date');
else {
  writeFileSync(file, next);
  console.log('README options table rewritten');
}
