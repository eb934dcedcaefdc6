// The option table drives commander: a value outside an option's choices or refused by its
// parser is a usage error (exit 2) naming the option, before the command runs; --help shows
// defaults, choices and the global options under every command.

import { describe, expect, it } from 'vitest';
import { byteSize, decimal, wholeNumber } from '../../src/cli/option-values.js';
import { OPTIONS } from '../../src/cli/options.js';
import { copyExample, runRambake } from '../helpers/exec.js';

const BAD: [string[], RegExp][] = [
  [['ci-ramdisk', '--os', 'macos', '--size', '1g', '--path', '/m'], /--os.*macos.*linux, freebsd/],
  [['ci-ramdisk', '--cpus', '0', '--size', '1g', '--path', '/m'], /--cpus.*'0'.*whole number, 1 or more/],
  [['churn', '--builds', 'five'], /--builds.*'five'.*whole number/],
  [['watch', '--interval', '0'], /--interval.*'0'.*seconds above 0/],
  [['bench-io', '--seconds', '-1'], /--seconds.*'-1'/],
  [['apply', '--conf', 'nowhere', '--dry-run'], /--conf.*nowhere.*auto, local, site, kas/],
  [['plan', '--scope', 'all'], /--scope.*all.*tmpdir, workdir/],
  [['plan', '--predict', '--threads', '1.5'], /--threads.*'1.5'.*whole number/],
  [['plan', '--ram', 'much'], /--ram.*'much'.*a size such as 16g/],
  [['apply', '--size', '0', '--dry-run'], /--size.*'0'.*a size such as/],
  [['ci-ramdisk', '--size', 'lots', '--path', '/m'], /--size.*'lots'.*a size such as/],
];

describe('option values', () => {
  it.each(BAD)('rambake %j is refused with exit 2', async (args, message) => {
    const ex = copyExample();
    try {
      const r = await runRambake(['-B', ex.topdir, '--no-bitbake', ...args]);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    } finally {
      ex.cleanup();
    }
  });

  it('--help shows defaults, choices and the global options under a command', async () => {
    const r = await runRambake(['churn', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/--builds <n>.*\(default: 5\)/s);
    expect(r.stdout).toMatch(/Global Options:[\s\S]*-B, --build-dir <dir>[\s\S]*--json[\s\S]*--no-bitbake/);
    const apply = await runRambake(['apply', '--help']);
    expect(apply.stdout).toMatch(
      /--conf <where>[\s\S]*\(choices: "auto", "local", "site",\s+"kas",\s+default: "auto"\)/,
    );
  });

  it('parsers take what they promise', () => {
    expect(wholeNumber(1)('12')).toBe(12);
    expect(() => wholeNumber(1)('0')).toThrow(/1 or more/);
    expect(() => wholeNumber(1)('1e3')).toThrow();
    expect(decimal(0, 3600)('0.5')).toBe(0.5);
    expect(byteSize('24GiB')).toBe(24 * 1024 ** 3);
    expect(byteSize('512m')).toBe(512 * 1024 ** 2);
    expect(() => decimal(0, 3600)('3601')).toThrow(/at most 3600/);
    // Every option with a parser or choices is in the table once per scope (no hand checks left).
    const seen = new Set<string>();
    for (const o of OPTIONS) {
      const key = `${o.flags} ${o.scope === 'global' ? 'global' : o.scope.join(',')}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
    }
  });
});
