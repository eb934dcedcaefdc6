// BB_CMDLINE as BitBake's event log holds it: the cooker writes every variable as Python's
// str(v), so a list comes back as its repr, not JSON. The buildstats source of steps takes a
// build's targets from it; read as words, the path of bitbake and the quotes became "targets".

import { describe, expect, it } from 'vitest';
import { parseCmdline } from '../../src/plan/history-targets.js';
import { commandTargets } from '../../src/timeline/timeline-runs.js';

describe('BB_CMDLINE from the event log', () => {
  it("reads Python's repr of the command line (the real BitBake 2.15.2's event log)", () => {
    const v = "['/tmp/rambake-real-uG3WXE/poky/bitbake/bin/bitbake', 'tiny-target', 'tiny-hello']";
    expect(parseCmdline(v)).toEqual([
      '/tmp/rambake-real-uG3WXE/poky/bitbake/bin/bitbake',
      'tiny-target',
      'tiny-hello',
    ]);
    expect(commandTargets(parseCmdline(v))).toEqual(['tiny-target', 'tiny-hello']);
  });

  it('unquotes what repr escapes, and a word with a quote in it', () => {
    expect(parseCmdline(`['bitbake', "it's", 'a\\\\b', 'tab\\there', '\\x41']`)).toEqual([
      'bitbake',
      "it's",
      'a\\b',
      'tab\there',
      'A',
    ]);
    expect(parseCmdline('[]')).toEqual([]);
  });

  it('still reads a JSON array and a plain string of words', () => {
    expect(parseCmdline('["bitbake", "core-image-sato"]')).toEqual(['bitbake', 'core-image-sato']);
    expect(parseCmdline('bitbake  -k zlib')).toEqual(['bitbake', '-k', 'zlib']);
    expect(parseCmdline(undefined)).toBeUndefined();
  });
});
