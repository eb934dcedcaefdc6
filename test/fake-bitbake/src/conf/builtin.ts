// What the fake BitBake reads when no layer provides conf/bitbake.conf (its own fixtures have
// none), and the hard assignments of the classes it models. Facts from OE-Core's
// meta/conf/bitbake.conf and classes (bitbake-formats.md §2–3, §5, §8), in their order.

/** Shaped like OE-Core's bitbake.conf: ?= path defaults, the build's conf files, then DL_DIR/SSTATE_DIR. */
export const BUILTIN_BITBAKE_CONF = `
TARGET_OS = "linux"
TMPDIR ?= "\${TOPDIR}/tmp"
PERSISTENT_DIR = "\${TOPDIR}/cache"
LOG_DIR = "\${TMPDIR}/log"
STAMPS_DIR ?= "\${TMPDIR}/stamps"
STAMP = "\${STAMPS_DIR}/\${MULTIMACH_TARGET_SYS}/\${PN}/\${PV}"
BASE_WORKDIR ?= "\${TMPDIR}/work"
WORKDIR = "\${BASE_WORKDIR}/\${MULTIMACH_TARGET_SYS}/\${PN}/\${PV}"
T = "\${WORKDIR}/temp"
STAGING_DIR = "\${TMPDIR}/sysroots"
COMPONENTS_DIR = "\${STAGING_DIR}-components"
DEPLOY_DIR ?= "\${TMPDIR}/deploy"
DEPLOY_DIR_IMAGE ?= "\${DEPLOY_DIR}/images/\${MACHINE}"
PKGDATA_DIR = "\${TMPDIR}/pkgdata/\${MACHINE}"

DISTRO ??= "nodistro"
MACHINEOVERRIDES ?= "\${MACHINE}"
DISTROOVERRIDES ?= "\${DISTRO}"
CLASSOVERRIDE ?= "class-target"
OVERRIDES = "\${TARGET_OS}:pn-\${PN}:\${MACHINEOVERRIDES}:\${DISTROOVERRIDES}:\${CLASSOVERRIDE}:forcevariable"

include conf/site.conf
include conf/auto.conf
include conf/toolcfg.conf
include conf/local.conf
include conf/machine/\${MACHINE}.conf
include conf/distro/\${DISTRO}.conf

DL_DIR ?= "\${TOPDIR}/downloads"
SSTATE_DIR ?= "\${TOPDIR}/sstate-cache"

BB_NUMBER_THREADS ?= "\${@oe.utils.cpu_count()}"
PARALLEL_MAKE ?= "-j \${@oe.utils.cpu_count()}"
`;

/**
 * Classes parsed after every conf file. sstate and buildstats are always on (OE-Core's
 * defaultsetup inherits them, and the fake always writes both); others when INHERIT names them.
 */
export const CLASSES: Record<string, string> = {
  sstate: 'SSTATE_MANIFESTS ?= "${TMPDIR}/sstate-control"\n',
  // A hard "=": only BUILDSTATS_BASE:forcevariable moves it.
  buildstats: 'BUILDSTATS_BASE = "${TMPDIR}/buildstats/"\n',
  rm_work: 'RM_WORK_EXCLUDE_ITEMS = "temp"\nBB_SCHEDULER ?= "completion"\n',
};

export const ALWAYS_INHERITED = ['sstate', 'buildstats'];
