// The one task graph of `steps` and `plan --predict` on the real BitBake 2.15.2: a build of the
// tiny layer recorded with `rambake run -- bitbake tiny-target tiny-hello` (two targets), then
// `steps` answered from `bitbake -g`, from the recorded run's task events (no bitbake on PATH),
// and from the buildstats it covered (the events removed): the same steps each time; from
// buildstats alone (no run: the targets come from BB_CMDLINE in BitBake's event log) no step,
// since nothing measured sizes the recipes. One of the two targets alone is answered by
// bitbake -g only: the recorded build of both cannot say what it needs, so without -g it is
// exit 2, one line. A target BitBake does not know is exit 2 from each source, for steps and
// plan --predict; `plan --predict` takes the recorded run's targets; `run --steps auto` runs
// the steps, then the command with both targets.

import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runRambake } from '../helpers/exec.js';
import { BUILD_USER, describeRealBuild, makeTinyBuild, rambakeEnv, waitForBitbakeServer } from './harness.js';

const TARGETS = ['tiny-target', 'tiny-hello'];
const AS_USER = ['/usr/sbin/runuser', '-u', BUILD_USER, '--', 'bitbake'];

interface StepsDoc {
  graph: string;
  targets: string[];
  steps: string[];
  needed: boolean;
  notes: string[];
}

describeRealBuild('one task graph for steps and plan --predict with the real BitBake', () => {
  it('the same steps from bitbake -g, the recorded run and buildstats; unknown targets exit 2; run --steps keeps both targets', {
    timeout: 900_000,
  }, async () => {
    const build = await makeTinyBuild();
    const env = rambakeEnv(build);
    const noBitbake = { ...env, PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
    const rambake = (args: string[], e = env) =>
      runRambake(['-B', build.topdir, ...args], { env: e, timeout: 300_000 });
    const steps = async (e: Record<string, string>, targets = TARGETS): Promise<StepsDoc> => {
      const r = await rambake(['--json', 'steps', ...targets], e);
      expect(r.exitCode, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as StepsDoc;
    };

    const recorded = await rambake([
      '--json',
      'run',
      '--ignore-doctor',
      '--interval',
      '0.2',
      '--',
      ...AS_USER,
      ...TARGETS,
    ]);
    expect(recorded.exitCode, `${recorded.stderr}\n${recorded.stdout.slice(-2000)}`).toBe(0);

    // bitbake -g is asked only when no server holds the lock: the build's may still be leaving.
    await waitForBitbakeServer(build.topdir);
    const dot = await steps(env);
    expect(dot.graph).toBe('task-depends.dot');
    expect(dot.targets).toEqual(TARGETS);
    expect(dot.steps, JSON.stringify(dot)).toContain('tiny-giant');
    expect(dot.steps.some((s) => TARGETS.includes(s))).toBe(false);

    const fromRun = await steps(noBitbake);
    expect(fromRun.graph).toBe('recorded');
    expect(fromRun.steps).toEqual(dot.steps);

    // The same run without its task events: the buildstats of the build it covered.
    const runs = join(build.topdir, 'rambake', 'runs');
    const file = join(runs, readdirSync(runs)[0]!);
    const text = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      text
        .split('\n')
        .filter((l) => !/"type":"task-(start|end)"/.test(l))
        .join('\n'),
    );
    const fromBuildstats = await steps(noBitbake);
    expect(fromBuildstats.graph).toBe('buildstats');
    expect(fromBuildstats.steps).toEqual(dot.steps);
    writeFileSync(file, text);

    // No run at all: buildstats, the targets from BitBake's event log; nothing measured to size
    // recipes with (the tiny layer has no known giant), so no step, and no wrong one.
    renameSync(runs, `${runs}.aside`);
    const alone = await steps(noBitbake);
    expect(alone.graph).toBe('buildstats');
    expect(alone.notes.join('\n')).not.toMatch(/targets are not known|passed over/);
    expect(alone.steps).toEqual([]);
    expect((await steps(env)).steps).toEqual(alone.steps);
    renameSync(`${runs}.aside`, runs);

    // tiny-hello alone does not need the giant: bitbake -g names only what it needs (pseudo-native,
    // its fakeroot). The recorded run (and its buildstats) built tiny-target too, so which of its
    // recipes tiny-hello needs is not known there: without -g, no answer but one line, exit 2.
    const hello = await steps(env, ['tiny-hello']);
    expect(hello.steps).not.toContain('tiny-giant');
    expect(hello.steps.every((s) => dot.steps.includes(s) || s === 'pseudo-native')).toBe(true);
    const helloAlone = await rambake(['steps', 'tiny-hello'], noBitbake);
    expect(helloAlone.exitCode, helloAlone.stderr).toBe(2);
    expect(helloAlone.stdout).toBe('');
    expect(helloAlone.stderr.trim().split('\n')).toHaveLength(1);
    expect(helloAlone.stderr).toMatch(
      /^rambake: no task graph covers tiny-hello \(.*built tiny-target tiny-hello.*\): with bitbake on PATH .*rambake run -- bitbake tiny-hello$/m,
    );

    // A target BitBake does not know: one line, exit 2, from bitbake -g and from the recorded
    // run, for steps and for plan --predict (the same graph).
    for (const e of [env, noBitbake]) {
      for (const args of [
        ['steps', 'no-such-recipe'],
        ['plan', '--predict', '--target', 'no-such-recipe'],
      ]) {
        const r = await rambake(args, e);
        expect(r.exitCode, r.stderr).toBe(2);
        expect(r.stderr).toMatch(/^rambake: .*no-such-recipe is not in (this|the) build/);
      }
    }

    // plan --predict without a target predicts the recorded run's targets; one verdict.
    const plan = await rambake(['--json', 'plan', '--predict'], noBitbake);
    expect([0, 1], plan.stderr).toContain(plan.exitCode);
    const doc = JSON.parse(plan.stdout);
    expect(doc.prediction).toMatchObject({ targets: TARGETS, targetsFrom: 'recorded-run' });
    if (doc.prediction.fits !== undefined) expect(doc.verdict.fits).toBe(doc.prediction.fits);
    expect(plan.exitCode).toBe(doc.verdict.fits ? 0 : 1);

    // run --steps auto with two targets: the giant alone, then the whole command.
    const stepped = await rambake([
      '--json',
      'run',
      '--ignore-doctor',
      '--steps',
      'auto',
      '--',
      ...AS_USER,
      ...TARGETS,
    ]);
    expect(stepped.exitCode, stepped.stderr).toBe(0);
    const summary = JSON.parse(stepped.stdout.trim().split('\n').at(-1)!);
    expect(summary.steps.map((s: { command: string[] }) => s.command)).toEqual([
      ...dot.steps.map((s) => [...AS_USER, s]),
      [...AS_USER, ...TARGETS],
    ]);
  });
});
