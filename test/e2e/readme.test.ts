// The README's options list and quick start stay true to the code.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/cli/options.js';
import { ROOT } from '../helpers/exec.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('lists every option of the option table', () => {
    for (const o of OPTIONS) expect(readme, o.flags).toContain(`| \`${o.flags}\` |`);
  });

  it('names the quick-start commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm test');
  });
});
