// `npm run fuzz`: the fuzzing suite for developers, longer than CI's run (test/fuzz/fuzz.test.ts).
//   npm run fuzz -- [--seed N] [--count N] [--jobs N] [--timeout MS] [--memory MB] [--address-space MB] [--keep DIR] [--case I,...]
// --memory is V8's heap limit; --address-space the hard cap of each case (prlimit --as).
// Prints each failing case with the command that reproduces it; --keep copies each failing
// case's tree (and case.json) into DIR, to become a named fixture under test/fixtures/fuzz-*/.
// Exit 1 when any case hung or crashed.

import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { ADDRESS_SPACE_MB, describeFailure, fuzz, summary } from '../test/fuzz/fuzzer.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    count: { type: 'string', default: '2000' },
    jobs: { type: 'string', default: String(availableParallelism()) },
    timeout: { type: 'string', default: '30000' },
    memory: { type: 'string', default: '256' },
    'address-space': { type: 'string', default: String(ADDRESS_SPACE_MB) },
    keep: { type: 'string' },
    case: { type: 'string' },
  },
});

const seed = Number(values.seed);
const only = values.case?.split(',').map(Number);
let done = 0;
const counts = await fuzz({
  seed,
  count: Number(values.count),
  ...(only ? { only } : {}),
  timeoutMs: Number(values.timeout),
  memoryMb: Number(values.memory),
  addressSpaceMb: Number(values['address-space']),
  jobs: Number(values.jobs),
  ...(values.keep ? { keep: values.keep } : {}),
  onCase: (c, o) => {
    done++;
    if (o.verdict !== 'ok') process.stdout.write(`\n${describeFailure({ case: c, outcome: o }, seed)}\n`);
    else if (process.stdout.isTTY) process.stdout.write(`\r${done} cases`);
  },
});
process.stdout.write(`\n${summary(counts)}\n`);
process.exitCode = counts.hangs + counts.crashes > 0 ? 1 : 0;
