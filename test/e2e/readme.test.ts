// The README's options list and quick start stay true to the code.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { optionsMarkdown } from '../../src/cli/options.js';
import { ROOT } from '../helpers/exec.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('lists every option of the option table (npm run readme rewrites it)', () => {
    const block = /<!-- options:begin -->\n([\s\S]*?)\n<!-- options:end -->/.exec(readme)?.[1];
    expect(block).toBe(optionsMarkdown());
  });

  it('names the quick-start commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
  });
});
