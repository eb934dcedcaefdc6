// Used when no layer provides conf/bitbake.conf (a build dir without openembedded-core checked
// out, or a test). An excerpt of oe-core's meta/conf/bitbake.conf with the same order of what
// matters to paths: the `?=` path defaults come BEFORE the includes of site/auto/toolcfg/local.conf
// (so a `TMPDIR ?=` there is a no-op), DL_DIR and SSTATE_DIR `?=` come AFTER them (so theirs work).
// Python is replaced by plain references where the meaning is the same when the variable is set.

export const BUILTIN_BITBAKE_CONF_NAME = '<built-in bitbake.conf>';

export const BUILTIN_BITBAKE_CONF = `TMPDIR ?= "\${TOPDIR}/tmp"
CACHE = "\${TMPDIR}/cache"
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

OVERRIDES = "\${TARGET_OS}:\${TRANSLATED_TARGET_ARCH}:pn-\${PN}:layer-\${FILE_LAYERNAME}:\${MACHINEOVERRIDES}:\${DISTROOVERRIDES}:\${CLASSOVERRIDE}:\${TCOVERRIDE}\${LIBCOVERRIDE}:forcevariable"
FILE_LAYERNAME ??= "config"
LIBCOVERRIDE ?= ""
CLASSOVERRIDE ?= "class-target"
DISTROOVERRIDES ?= "\${DISTRO}"
MACHINEOVERRIDES ?= "\${MACHINE}"

include conf/site.conf
include conf/auto.conf
include conf/toolcfg.conf
include conf/local.conf

OE_FRAGMENTS_PREFIX ?= "conf/fragments"
OE_FRAGMENTS_METADATA_VARS ?= "BB_CONF_FRAGMENT_SUMMARY BB_CONF_FRAGMENT_DESCRIPTION"
OE_FRAGMENTS_BUILTIN ?= "machine:MACHINE distro:DISTRO"
addfragments \${OE_FRAGMENTS_PREFIX} OE_FRAGMENTS OE_FRAGMENTS_METADATA_VARS OE_FRAGMENTS_BUILTIN

include conf/machine/\${MACHINE}.conf
include conf/distro/\${DISTRO}.conf
include conf/distro/defaultsetup.conf

DL_DIR ?= "\${TOPDIR}/downloads"
SSTATE_DIR ?= "\${TOPDIR}/sstate-cache"
CACHE := "\${CACHE}"
BB_NUMBER_THREADS ?= "\${@oe.utils.cpu_count()}"
PARALLEL_MAKE ?= "-j \${@oe.utils.cpu_count()}"
`;

export const BUILTIN_CLASSES_NAME = '<built-in class excerpts>';

/**
 * What the always-inherited classes set about paths (rambake does not parse classes): parsed after
 * bitbake.conf whichever bitbake.conf was used. sstate.bbclass: `SSTATE_MANIFESTS ?=`, so a
 * local.conf value wins; buildstats.bbclass: a hard `=`, so only `:forcevariable` moves it.
 */
export const BUILTIN_CLASSES = `SSTATE_MANIFESTS ?= "\${TMPDIR}/sstate-control"
BUILDSTATS_BASE = "\${TMPDIR}/buildstats/"
`;
