// Expansion with limits: cycles, runaway chains and doubling end in one line and exit 2 with
// the file:line of the variable, as BitBake's ExpansionError stops its parse; never a hang, a
// stack overflow or "invalid string length".

import { describe, expect, it } from 'vitest';
import { DataStore } from '../../src/bitbake/conf/datastore.js';
import { MAX_EXPANDED_LENGTH, MAX_EXPANSION_DEPTH } from '../../src/bitbake/conf/expand.js';
import { parseConf } from '../../src/bitbake/conf/parser.js';
import { withCpuMs } from '../helpers/cpu-time.js';
import { runRambake } from '../helpers/exec.js';
import { copyHostile } from './hostile-build.js';

function evalConf(text: string): DataStore {
  const data = new DataStore();
  for (const st of parseConf(text, 'local.conf').statements) if (st.kind === 'assign') data.assign(st);
  return data;
}

/** `C0 = "${C1}"` … `C<n> = "end"`: a chain n references deep. */
const chain = (n: number) =>
  `${Array.from({ length: n }, (_, i) => `C${i} = "\${C${i + 1}}"`).join('\n')}\nC${n} = "end"\n`;

/** `D0 = "x"`, `D<i> = "${D<i-1>}${D<i-1>}"`: D<n> is 2^n characters long. */
const doubling = (n: number) =>
  `D0 = "x"\n${Array.from({ length: n }, (_, i) => `D${i + 1} = "\${D${i}}\${D${i}}"`).join('\n')}\n`;

describe('DataStore expansion limits', () => {
  it('A = "${B}${B}", B = "${A}": a cycle, reported once, at once', () => {
    const data = evalConf('A = "${B}${B}"\nB = "${A}"\nT = "${A}"');
    const read = withCpuMs(() => data.getVar('T')?.value);
    expect(read.result).toBe('${A}');
    expect(read.cpuMs).toBeLessThan(1000);
    expect(data.diagnostics).toMatchObject([
      { code: 'expansion-cycle', message: 'variable A references itself (through B)', line: 1 },
    ]);
    // Later reads answer from the recorded failure, without a second diagnostic.
    expect(data.getVar('A')?.value).toBe('${B}${B}');
    expect(data.diagnostics).toHaveLength(1);
  });

  it('a chain as deep as BitBake can go expands; deeper is one error at the variable', () => {
    expect(evalConf(chain(MAX_EXPANSION_DEPTH - 1)).getVar('C0')?.value).toBe('end');
    const data = evalConf(chain(5000));
    expect(data.getVar('C0')?.value).toBe('${C1}');
    expect(data.diagnostics).toMatchObject([
      {
        code: 'expansion-limit',
        message: `Failure expanding variable C${MAX_EXPANSION_DEPTH}: references nest more than ${MAX_EXPANSION_DEPTH} deep`,
        line: MAX_EXPANSION_DEPTH + 1,
      },
    ]);
  });

  it('a 30-level doubling chain stops at the length cap, memoised (no exponential work)', () => {
    const data = evalConf(doubling(30));
    const read = withCpuMs(() => [data.getVar('D20')?.value, data.getVar('D30')?.value]);
    expect(read.result[0]).toHaveLength(2 ** 20);
    expect(read.result[1]).toBe('${D29}${D29}');
    expect(read.cpuMs).toBeLessThan(5000);
    const bits = Math.log2(MAX_EXPANDED_LENGTH);
    expect(data.diagnostics).toMatchObject([
      {
        code: 'expansion-limit',
        message: expect.stringMatching(
          new RegExp(`^Failure expanding variable D${bits + 1}: the value grows past`),
        ),
      },
    ]);
  });

  it('one line with many references to a long value stops within the cap', () => {
    const data = evalConf(`L = "${'y'.repeat(1 << 20)}"\nM = "${'${L}'.repeat(64)}"`);
    expect(data.getVar('M')?.value).toBe('${L}'.repeat(64));
    expect(data.diagnostics[0]?.code).toBe('expansion-limit');
  });

  it('a flag referencing its own variable is no cycle; := reads the value before', () => {
    const data = evalConf('A = "a"\nA[doc] = "about ${A}"\nA := "${A} more"');
    expect(data.getVarFlag('A', 'doc')?.value).toBe('about a more');
    expect(data.getVar('A')?.value).toBe('a more');
    expect(data.diagnostics).toEqual([]);
  });

  it('an OVERRIDES cycle read in the middle of another expansion does not break it', () => {
    const data = evalConf('OVERRIDES = "${OVERRIDES}:x"\nA = "${B}"\nB = "b"\nB:x = "x"');
    // BitBake stops at such a cycle; rambake reports it and reads OVERRIDES as written.
    expect(() => data.getVar('A')).not.toThrow();
    expect(data.diagnostics.map((d) => d.code)).toEqual(['expansion-cycle']);
  });
});

describe('status and doctor on runaway expansion: one line, exit 2', () => {
  const cases: [string, string, Record<string, string>, RegExp][] = [
    [
      'expansion-doubling-cycle',
      'expansion-doubling-cycle',
      {},
      /local\.conf:2: variable A references itself \(through B\)/,
    ],
    [
      'expansion-self-reference',
      'expansion-self-reference',
      {},
      /local\.conf:2: variable A references itself \(expected/,
    ],
    [
      'a 5,000-deep chain',
      'plain-build',
      { 'build/conf/local.conf': `TMPDIR = "/tmp/\${C0}"\n${chain(5000)}` },
      /local\.conf:\d+: Failure expanding variable C\d+: references nest more than \d+ deep/,
    ],
    [
      'a 30-level doubling chain',
      'plain-build',
      { 'build/conf/local.conf': `${doubling(30)}TMPDIR = "/tmp/\${D30}"\n` },
      /local\.conf:\d+: Failure expanding variable D\d+: the value grows past \d+ characters/,
    ],
  ];
  for (const [what, fixture, files, message] of cases) {
    for (const command of ['status', 'doctor']) {
      it(`${what}: ${command}`, async () => {
        const build = copyHostile(fixture, files);
        try {
          const r = await runRambake([command, '--build-dir', build.topdir], { timeout: 20_000 });
          expect(r.stderr.split('\n')[0]).toMatch(message);
          expect(r.stderr).not.toMatch(/unexpected error|RangeError|invalid string length/i);
          expect(r.exitCode).toBe(2);
        } finally {
          build.cleanup();
        }
      });
    }
  }
});
