// Child process for the kill -9 test: applies two plans in turn, forever, to one conf file.
// The parent kills it at a random moment and checks the file is whole.

import { writeManagedBlock } from '../../src/apply/conf-write.js';

const [file] = process.argv.slice(2);
const PLANS = [
  ['TMPDIR = "/mnt/rambake/a"', 'INHERIT += "rm_work"'],
  ['TMPDIR = "/mnt/rambake/b"', 'INHERIT += "rm_work"', 'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},1G,100K"'],
];

async function main(): Promise<void> {
  for (let i = 0; ; i++) {
    await writeManagedBlock(file!, PLANS[i % 2]!);
    if (i === 0) process.stdout.write('ready\n');
  }
}

await main();
