// One table for every flag: it drives commander, --help, and the README's options list
// (a test checks that the README names each one). Short forms follow BitBake's where it has the
// same idea (-n dry run, -f force, -D debug; -B is rambake's build directory), plus -s for a
// size and -i for the sampling interval.

import { DEFAULT_CHURN_BUILDS } from '../analyze/churn.js';
import { type Command, Option } from './commander.js';
import { byteSize, decimal, wholeNumber } from './option-values.js';

export interface OptionSpec {
  flags: string;
  description: string;
  /** Commands that take it; 'global' options are accepted by every command. */
  scope: 'global' | string[];
  /** Shown in --help as (default: …); what the command gets when the flag is not given. */
  defaultValue?: string | boolean | number;
  /** The only values accepted (commander refuses others, exit 2, and lists these in --help). */
  choices?: readonly string[];
  /** Turns the text into the command's value, or throws commander's InvalidArgumentError. */
  parse?: (value: string) => unknown;
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
  { flags: '-D, --debug', description: 'show stack traces for unexpected errors', scope: 'global' },
  {
    flags: '--no-bitbake',
    description: 'do not ask BitBake (bitbake -e) or the event log; read the conf files only',
    scope: 'global',
  },
  {
    flags: '--predict',
    description:
      'simulate the build (completion and speed schedulers) and predict its peak against the tmpfs size',
    scope: ['plan'],
  },
  {
    flags: '--threads <n>',
    description: 'BB_NUMBER_THREADS for --predict',
    scope: ['plan'],
    parse: wholeNumber(1),
  },
  {
    flags: '--steps <list>',
    description:
      'targets built one at a time before the rest, comma-separated (`auto`: rambake steps decides); run builds them, plan --predict sizes the build as if it did',
    scope: ['plan', 'run'],
  },
  {
    flags: '--ram <size>',
    description: 'plan for this much RAM instead of MemTotal (what if: 32g); k, m, g suffixes, binary',
    scope: ['plan'],
    parse: byteSize,
  },
  {
    flags: '--scope <scope>',
    description: 'what goes to RAM: tmpdir (all of TMPDIR, the default) or workdir (BASE_WORKDIR only)',
    scope: ['plan', 'apply'],
    choices: ['tmpdir', 'workdir'],
  },
  {
    flags: '--target <name>',
    description:
      'what the build makes (core-image-minimal, core-image-sato, core-image-weston, world): picks published figures when nothing was measured',
    scope: ['plan', 'apply'],
  },
  {
    flags: '-s, --size <size>',
    description: 'use this tmpfs size instead of choosing one (e.g. 24g)',
    scope: ['plan', 'apply'],
    parse: byteSize,
  },
  {
    flags: '--path <dir>',
    description: 'mount point of the tmpfs (default ${TOPDIR}/tmp-ram; the workdir scope uses BASE_WORKDIR)',
    scope: ['plan', 'apply'],
  },
  {
    flags: '--os <os>',
    description: 'linux (tmpfs) or freebsd (swap-backed md disk)',
    scope: ['ci-ramdisk'],
    choices: ['linux', 'freebsd'],
    defaultValue: 'linux',
  },
  {
    flags: '-s, --size <size>',
    description: 'RAM disk size (e.g. 20g)',
    scope: ['ci-ramdisk'],
    parse: byteSize,
  },
  { flags: '--path <dir>', description: 'where the RAM disk is mounted (absolute)', scope: ['ci-ramdisk'] },
  {
    flags: '--copy-from <dir>',
    description: 'copy this working tree onto the RAM disk; the same folder as --path moves it in place',
    scope: ['ci-ramdisk'],
  },
  {
    flags: '--cpus <n>',
    description: "CPUs of the CI machine (default: this machine's)",
    scope: ['ci-ramdisk'],
    parse: wholeNumber(1),
  },
  {
    flags: '--builds <n>',
    description: 'how many of the newest builds (buildstats folders) to analyse',
    scope: ['churn'],
    defaultValue: DEFAULT_CHURN_BUILDS,
    parse: wholeNumber(1),
  },
  { flags: '--save <file>', description: 'write the TMPDIR scan as JSON to this file', scope: ['space'] },
  {
    flags: '--compare <file>',
    description: 'compare with a scan saved by --save: growth per recipe and subfolder',
    scope: ['space'],
  },
  {
    flags: '--ignore-doctor',
    description: 'start the command even when doctor finds an error that makes the build fail',
    scope: ['run'],
  },
  {
    flags: '--move-old-deploy',
    description:
      'move a DEPLOY_DIR that outlived its TMPDIR aside (to <dir>.old-<date>, nothing deleted) before the build',
    scope: ['run'],
  },
  {
    flags: '-i, --interval <seconds>',
    description: 'seconds between samples of the TMPDIR file system and the busy work dirs',
    scope: ['watch', 'run'],
    defaultValue: 2,
    parse: decimal(0, 3600),
  },
  {
    flags: '--timeline <file>',
    description:
      'where to append the timeline (JSON lines); default: ${TOPDIR}/rambake/runs/<start-time>.jsonl',
    scope: ['watch', 'run'],
  },
  {
    flags: '--until-build-end',
    description: 'stop watching when the next build (or the running one) ends',
    scope: ['watch'],
  },
  {
    flags: '-n, --dry-run',
    description: 'print the conf diff and the mount commands; change nothing',
    scope: ['apply'],
  },
  {
    flags: '--conf <where>',
    description:
      'where the managed block goes: auto (conf/auto.conf), local, site, or kas (print a kas local_conf_header entry)',
    scope: ['apply'],
    choices: ['auto', 'local', 'site', 'kas'],
    defaultValue: 'auto',
  },
  {
    flags: '-f, --force',
    description:
      'overwrite (apply) or remove (revert) a managed block that was edited by hand; apply a plan that does not fit',
    scope: ['apply', 'revert'],
  },
  {
    flags: '--allow-oversized-tmpfs',
    description:
      "apply a tmpfs larger than RAM + swap minus the compilers' reserve: a full tmpfs then runs the machine out of memory",
    scope: ['apply'],
  },
  {
    flags: '--unit-file <path>',
    description: 'also write a systemd .mount unit: a folder, or a file named after the mount point',
    scope: ['apply'],
  },
  {
    flags: '--dir <path>',
    description: "bench-io: measure this folder's file system instead of TMPDIR's",
    scope: ['bench-io'],
  },
  {
    flags: '--seconds <n>',
    description: 'bench-io: total time budget, split evenly between the runs',
    scope: ['bench-io'],
    defaultValue: 60,
    parse: decimal(0, 24 * 3600),
  },
  {
    flags: '--html <file>',
    description: 'report: also write the report as one self-contained HTML file (charts inline, no network)',
    scope: ['report'],
  },
  {
    flags: '--no-plan',
    description:
      'report: leave out the sizing model (it depends on this host: RAM, CPUs, every recorded run)',
    scope: ['report'],
  },
];

/** The commander Option for one row of the table: flags, help, default, choices, parser. */
export function toOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
  if (spec.choices) option.choices(spec.choices);
  if (spec.parse) option.argParser(spec.parse);
  return option;
}

/** Every option of the table that `name` takes (global ones are on the program). */
export function addOptions(cmd: Command, name: string): Command {
  for (const spec of OPTIONS)
    if (spec.scope !== 'global' && spec.scope.includes(name)) cmd.addOption(toOption(spec));
  return cmd;
}

/** The README's options table (between the `options:begin`/`options:end` markers), from this table. */
export function optionsMarkdown(): string {
  const rows = ['| option | commands | meaning |', '|---|---|---|'];
  for (const o of OPTIONS) {
    const scope = o.scope === 'global' ? 'all' : o.scope.map((c) => `\`${c}\``).join(', ');
    rows.push(`| \`${o.flags}\` | ${scope} | ${o.description.replace(/\|/g, '\\|')} |`);
  }
  return rows.join('\n');
}
