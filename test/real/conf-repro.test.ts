// The differential suite's shrinker and reproducers (conf-repro.ts): renaming and shrinking
// without BitBake, then a shrink whose every round asks the real BitBake (candidates batched in
// one run) and the printed reproducer run by sh as printed.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { caseFiles, type GenCase, withTag } from './conf-gen.js';
import { batchEnv, batchLocal, reproducerScript, shrink, smallerCases } from './conf-repro.js';
import { bitbakeE, bitbakeEnv, describeReal, makeConfigBuildDir, realCleanup, realTree } from './harness.js';

const REPO = resolve(import.meta.dirname, '..', '..');

/** A case where only two statements matter: C900_A gets " zz" appended and "yy " prepended. */
const CASE: GenCase = {
  id: '900',
  prefix: 'C900_',
  active: 'c900x',
  env: { C900_E: 'env900', C900_N: 'hidden900' },
  units: [
    { lines: ['C900_A = "a1 ${C900_E}"'] },
    { lines: ['C900_A:append = " zz"'] },
    { lines: ['C900_B ??= "b2"'] },
    {
      lines: ['include gen-900-0.inc'],
      file: {
        name: 'gen-900-0.inc',
        body: ['C900_C = "c3"', 'C900_A:prepend = "yy "', 'C900_B:c900y = "x"'],
      },
    },
    { lines: ['C900_C:c900x = "d4 \\', '    e5"'] },
  ],
};
const MINIMAL = [
  { lines: ['C900_A:append = " zz"'] },
  { lines: ['include gen-900-0.inc'], file: { name: 'gen-900-0.inc', body: ['C900_A:prepend = "yy "'] } },
];

describe('shrinking generated cases (no BitBake)', () => {
  it('renames every name a case owns, and nothing else', () => {
    const t = withTag(CASE, '900r1v2');
    expect(t.prefix).toBe('C900r1v2_');
    expect(t.active).toBe('c900r1v2x');
    expect(t.units[0]?.lines).toEqual(['C900r1v2_A = "a1 ${C900r1v2_E}"']);
    expect(t.units[3]?.lines).toEqual(['include gen-900r1v2-0.inc']);
    expect(t.units[3]?.file?.body[2]).toBe('C900r1v2_B:c900r1v2y = "x"');
    expect(Object.keys(t.env)).toEqual(['C900r1v2_E', 'C900r1v2_N']);
    expect(withTag(t, '900')).toEqual(CASE);
  });

  it('drops units and lines of included files until nothing more can go', async () => {
    expect(smallerCases(CASE)).toHaveLength(CASE.units.length + 3);
    const needed = (c: GenCase) => {
      const text = [...c.units.flatMap((u) => u.lines), ...caseFiles(c).values()].join('\n');
      return text.includes(':append = " zz"') && text.includes(':prepend = "yy "');
    };
    const small = await shrink(CASE, 'C900_A: differs', async (cs) =>
      cs.map((c) => (needed(c) ? `${c.prefix}A: differs` : undefined)),
    );
    expect(small.case.units).toEqual(MINIMAL);
    expect(small.problem).toBe('C900_A: differs');
  });
});

describeReal('shrinking against the real BitBake, and the reproducer as printed', () => {
  /** BitBake's values of a batch of cases (one run). */
  async function bitbakeValues(cases: GenCase[]): Promise<Map<string, string> | undefined> {
    const tree = await realTree();
    const topdir = await makeConfigBuildDir({ local: batchLocal(cases).text });
    for (const c of cases)
      for (const [name, text] of caseFiles(c)) writeFileSync(join(topdir, 'conf', name), text);
    const r = await bitbakeE(topdir, { env: bitbakeEnv(tree, batchEnv(cases, 'additions')) });
    return r.ok ? r.vars : undefined;
  }

  it('keeps the statements BitBake needs for the value, asking it once per round', async () => {
    let runs = 0;
    const small = await shrink(CASE, 'C900_A holds yy and zz', async (cs) => {
      runs++;
      const vars = await bitbakeValues(cs);
      return cs.map((c) => {
        const a = vars?.get(`${c.prefix}A`) ?? '';
        return a.includes('yy') && a.includes('zz') ? `${c.prefix}A: ${JSON.stringify(a)}` : undefined;
      });
    });
    expect(small.case.units).toEqual(MINIMAL);
    expect(small.problem).toBe('C900_A: "yy  zz"');
    expect(runs).toBe(small.rounds);
    // Independent statements go together: far fewer runs than one round per dropped statement.
    expect(runs).toBeLessThanOrEqual(4);

    // The reproducer, run by sh as printed: BitBake's line and rambake's reading of it.
    const dir = mkdtempSync(join(await realTree(), '..', 'repro-'));
    realCleanup(() => rmSync(dir, { recursive: true, force: true }));
    const script = reproducerScript(small.case, 'additions', '/home/reproducer', small.problem);
    writeFileSync(join(dir, 'repro.sh'), script);
    const r = await execa('sh', ['repro.sh'], {
      cwd: dir,
      env: { POKY: await realTree(), PATH: `${join(process.execPath, '..')}:/usr/bin:/bin` },
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode, `${script}\n${r.stderr}`).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('C900_A="yy  zz"');
    expect(lines.find((l) => l.startsWith('C900_A {'))).toMatch(/^C900_A \{"value":"yy {2}zz",/);
    expect(lines.find((l) => l.startsWith('C900_E {'))).toMatch(/^C900_E \{"value":"env900"/);
    expect(lines.filter((l) => /^C900_[BCN] \{/.test(l))).toHaveLength(3);
    expect(script).toContain(join(REPO, 'dist', 'bitbake', 'builddir.js'));
  }, 120_000);
});
