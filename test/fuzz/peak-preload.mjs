// Loaded into each fuzz case (node --import): at exit, one stderr line with the process's peak
// address space and peak resident memory (/proc/self/status VmPeak, VmHWM, in kB), so the fuzzer
// can say how close the cases came to the cap. The fuzzer removes the line before judging.
import { readFileSync } from 'node:fs';

process.on('exit', () => {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name) => /(\d+) kB/.exec(status.slice(status.indexOf(`${name}:`)))?.[1] ?? '0';
    process.stderr.write(`\nrambake-fuzz-peak ${kb('VmPeak')} ${kb('VmHWM')}\n`);
  } catch {
    // no procfs: no figures
  }
});
