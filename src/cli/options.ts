// One table for every flag: it drives commander, --help, and the README's options list
// (a test checks that the README names each one).

export interface OptionSpec {
  flags: string;
  description: string;
  /** Commands that take it; 'global' options are accepted by every command. */
  scope: 'global' | string[];
  defaultValue?: string | boolean;
}

export const OPTIONS: OptionSpec[] = [
  {
    flags: '-B, --build-dir <dir>',
    description:
      'the build directory (TOPDIR); default: $BUILDDIR, else the nearest folder upward with conf/bblayers.conf',
    scope: 'global',
  },
  { flags: '--json', description: 'print one JSON document on stdout (and nothing else)', scope: 'global' },
  {
    flags: '--no-color',
    description: 'no colour even on a terminal (NO_COLOR is honoured too)',
    scope: 'global',
  },
  { flags: '--debug', description: 'show stack traces for unexpected errors', scope: 'global' },
  {
    flags: '--no-bitbake',
    description: 'do not ask bitbake-getvar or the event log; read the conf files only',
    scope: 'global',
  },
];

export function optionsFor(command: string): OptionSpec[] {
  return OPTIONS.filter((o) => o.scope === 'global' || o.scope.includes(command));
}
