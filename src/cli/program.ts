// The commander program: global options from the option table, one module per command. A
// command's module holds only its definition (arguments, flags, help text) and imports its
// use-case and renderers when its action runs, so `rambake --help`, no command or an unknown
// word register every command (help and suggestions are whole) without loading what they run:
// execa, the watcher, BitBake's parsers, the HTML report. `rambake --version` loads none of them,
// and a command loads only its own.

import { Command } from './commander.js';
import { OPTIONS, toOption } from './options.js';

const VERSION = '0.1.0';

type Register = (program: Command) => void;

/** In the order a user meets them: read the build, plan and apply, build under watch, analyse. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  status: async () => (await import('./status.js')).registerStatus,
  doctor: async () => (await import('./doctor.js')).registerDoctor,
  plan: async () => (await import('./plan.js')).registerPlan,
  apply: async () => (await import('./apply.js')).registerApply,
  revert: async () => (await import('./revert.js')).registerRevert,
  watch: async () => (await import('./watch.js')).registerWatch,
  run: async () => (await import('./run.js')).registerRun,
  churn: async () => (await import('./churn.js')).registerChurn,
  space: async () => (await import('./space.js')).registerSpace,
  report: async () => (await import('./report.js')).registerReport,
  steps: async () => (await import('./steps.js')).registerSteps,
  'bench-io': async () => (await import('./bench-io.js')).registerBenchIo,
  'ci-ramdisk': async () => (await import('./ci-ramdisk.js')).registerCiRamdisk,
};

/** Global options that take a value: their value is not the command word. */
const VALUE_OPTIONS = new Set(
  OPTIONS.filter((o) => o.scope === 'global' && /[<[]/.test(o.flags)).flatMap((o) =>
    o.flags
      .split(/[ ,]+/)
      .filter((w) => w.startsWith('-'))
      .map((w) => w.replace(/=.*$/, '')),
  ),
);

/** The command word in `argv` (process.argv), if any: the first word that is not an option. */
export function commandWord(argv: readonly string[]): string | undefined {
  for (let i = 2; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return undefined;
    if (!word.startsWith('-')) return word;
    if (VALUE_OPTIONS.has(word)) i++;
  }
  return undefined;
}

export async function buildProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command('rambake')
    .description('Run BitBake/Yocto builds in RAM that still fit.')
    .version(VERSION)
    .showHelpAfterError('(run rambake --help for usage)')
    // Every command's --help lists -B, --json, --no-bitbake… too (commands inherit this).
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(`rambake: ${text.replace(/^error: /, '')}`),
    });
  for (const spec of OPTIONS.filter((o) => o.scope === 'global')) program.addOption(toOption(spec));
  const word = commandWord(argv);
  const onlyVersion = word === undefined && (argv.includes('--version') || argv.includes('-V'));
  const wanted = onlyVersion ? [] : word !== undefined && word in COMMANDS ? [word] : Object.keys(COMMANDS);
  const registers = await Promise.all(wanted.map((name) => COMMANDS[name]!()));
  for (const register of registers) register(program);
  for (const cmd of program.commands) cmd.exitOverride();
  return program;
}
