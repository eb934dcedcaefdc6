// Only the command being run is loaded: the command word is found past the global options.

import { describe, expect, it } from 'vitest';
import { buildProgram, commandWord } from '../../src/cli/program.js';

const argv = (...words: string[]) => ['node', 'rambake', ...words];

describe('the command word', () => {
  it('skips global flags and the value of -B / --build-dir', () => {
    expect(commandWord(argv('status'))).toBe('status');
    expect(commandWord(argv('-B', 'status', 'doctor'))).toBe('doctor');
    expect(commandWord(argv('--build-dir', '/b', '--json', 'plan', '--target', 'x'))).toBe('plan');
    expect(commandWord(argv('--build-dir=/b', 'apply'))).toBe('apply');
    expect(commandWord(argv('--json'))).toBeUndefined();
    expect(commandWord(argv('--', 'status'))).toBeUndefined();
  });

  it('registers one command when one is named, every command for help or an unknown word', async () => {
    expect((await buildProgram(argv('-B', '/b', 'churn'))).commands.map((c) => c.name())).toEqual(['churn']);
    expect((await buildProgram(argv('--version'))).commands).toHaveLength(0);
    expect((await buildProgram(argv('--help'))).commands.length).toBeGreaterThan(10);
    expect((await buildProgram(argv('statuss'))).commands.length).toBeGreaterThan(10);
  });
});
