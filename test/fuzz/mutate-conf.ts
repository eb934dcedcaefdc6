// Conf-file mutations: the lines a hostile or careless hand writes into local.conf, auto.conf,
// bblayers.conf, a layer.conf or an included .inc (cycles, runaway expansion, bad quotes,
// includes of special files, broken continuations, odd operators), on top of the byte and line
// mutations every file can suffer.

import { BLOCK_BEGIN } from '../../src/plan/managed-block.js';
import { BYTE_MUTATIONS, insertAt, LINE_MUTATIONS, type Mutation } from './mutate-bytes.js';
import type { Random } from './random.js';

const chain = (n: number, name: string) =>
  Array.from({ length: n }, (_, i) => `${name}${i} = "\${${name}${i + 1}}"`).join('\n') +
  `\n${name}${n} = "end"\nTMPDIR = "\${${name}0}"\n`;

const doubling = (n: number) =>
  Array.from({ length: n }, (_, i) => `D${i} = "\${D${i + 1}}\${D${i + 1}}"`).join('\n') +
  `\nD${n} = "xxxxxxxxxxxxxxxx"\nTMPDIR = "\${D0}"\n`;

/** Hostile text, each a function of the generator (sizes vary). */
const HOSTILE: ((r: Random) => string)[] = [
  () => 'A = "${B}${B}"\nB = "${A}"\nTMPDIR = "${A}"\n',
  () => 'TMPDIR = "${TMPDIR}/x"\n',
  () => 'A = "${A}"\nDL_DIR = "${A}"\n',
  (r) => chain(r.int(10, 6000), 'C'),
  (r) => doubling(r.int(5, 40)),
  (r) => `TMPDIR = "/tmp/${'a'.repeat(r.int(300, 6000))}"\n`,
  (r) => `SSTATE_DIR = "${'/x'.repeat(r.int(100, 3000))}"\n`,
  () => 'TMPDIR = "/tmp/unterminated\n',
  () => 'TMPDIR = /tmp/unquoted\n',
  () => 'TMPDIR = \'/tmp/single"\n',
  () => 'TMPDIR = "/tmp/a" "b"\n',
  () => 'A = "x"  # trailing comment\n',
  () => '  # indented comment\n',
  () => '# a comment continued \\\nA = "x"\n',
  () => 'include /proc/kmsg\n',
  () => 'include /dev/zero\n',
  () => 'require /proc/self/pagemap\n',
  () => 'include /dev/stdin\n',
  () => 'require conf/does-not-exist.inc\n',
  () => 'include ${TOPDIR}/conf/fuzz.inc\n',
  () => 'require ${TOPDIR}/conf/local.conf\n',
  (r) => `include ${'d/'.repeat(r.int(100, 3000))}x.inc\n`,
  (r) => `include ${'n'.repeat(r.int(256, 5000))}.inc\n`,
  () => 'include ${@bb.utils.which("x")}\n',
  () => 'TMPDIR = "${@os.path.abspath(\'/tmp\')}"\n',
  () => 'TMPDIR = "${@"\n',
  () => 'python () {\n    d.setVar("TMPDIR", "/tmp")\n',
  () => 'def f(d):\n    return "x"\n',
  () => 'inherit rm_work\n',
  () => 'INHERIT += "rm_work"\nRM_WORK_EXCLUDE:append = " ${@"\n',
  () => 'TMPDIR_append = "/x"\n',
  () => 'TMPDIR:append:pn-foo = "/x"\nTMPDIR:remove = "${TMPDIR}"\n',
  () => 'export TMPDIR\nunset TMPDIR\nunset DL_DIR[doc]\n',
  () => 'TMPDIR[flag] = "${TMPDIR}"\n',
  () => 'TMPDIR ??= "/a"\nTMPDIR ?= "/b"\nTMPDIR := "${TMPDIR}/c"\nTMPDIR .= "/d"\nTMPDIR =+ "/e"\n',
  () => 'TMPDIR:forcevariable = "relative/path"\n',
  () => 'TMPDIR = ""\n',
  () => 'TMPDIR = "/"\n',
  () => 'TMPDIR = "~/tmp"\n',
  () => 'TMPDIR = "/tmp/a b"\n',
  () => 'TMPDIR = "/tmp/../etc"\n',
  () => 'BBLAYERS += "/nonexistent/meta-x"\n',
  () => 'BBLAYERS = "${TOPDIR}/.."\n',
  () => 'BBLAYERS = "/proc /dev"\n',
  () => 'BBLAYERS = "${TOPDIR}"\n',
  () => 'LAYERSERIES_COMPAT_core = "${@"\nBBFILE_PRIORITY_core = "x"\n',
  () => 'BB_NUMBER_THREADS = "-1"\nPARALLEL_MAKE = "-j 99999999999999999999"\n',
  () => 'BB_NUMBER_THREADS = "${@oe.utils.cpu_count()*1e308}"\n',
  () => 'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},1G,100K HALT,,, ,x,y,z"\n',
  () => 'BB_DISKMON_DIRS = "STOPTASKS,${TMPDIR},99999999999999999999G,1e308K"\n',
  () => 'MACHINE = "${MACHINE}"\nDISTRO = "../../../../etc/passwd"\n',
  () => 'DISTRO = "/dev/zero"\nMACHINE = "../../../../proc/self/pagemap"\n',
  (r) => `A = "x \\\n${Array.from({ length: r.int(1000, 100_000) }, () => '  y \\').join('\n')}\n"\n`,
  () => 'A = "x" \\\n',
  () => 'A = "x"\\',
  () => '\u00c9T\u00c9 = "x"\nTMPDIR = "/tmp/\u00e9t\u00e9/\u202e"\n',
  () => 'TMPDIR\t=\t"/tmp/tab"\n',
  () => 'A = """x"""\n',
  () => '=\n:\n${\n}\n"\n',
  () => 'TMPDIR = "${TOPDIR}/tmp"\nTMPDIR:pn-${TMPDIR} = "x"\n',
  () => 'OVERRIDES = "${OVERRIDES}:x"\n',
  () => 'OVERRIDES = "a:b:${MACHINE}:${DISTRO}"\nMACHINE = "${OVERRIDES}"\n',
  () => `${BLOCK_BEGIN}\nTMPDIR = "/tmp/x"\n`,
  () => `${BLOCK_BEGIN}\n${BLOCK_BEGIN}\n`,
];

export const CONF_MUTATIONS: Mutation[] = [
  ...BYTE_MUTATIONS,
  ...LINE_MUTATIONS,
  ...LINE_MUTATIONS,
  // As likely as all the others together: these are the lines that broke rambake before.
  ...Array.from({ length: 30 }, () => ({
    name: 'hostile lines',
    apply: (r: Random, d: Buffer) => {
      const text = r.pick(HOSTILE)(r);
      return { kind: 'bytes' as const, data: insertAt(r, d, Buffer.from(text), true), note: text };
    },
  })),
];
