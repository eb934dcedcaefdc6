#!/bin/sh
# CI RAM disk for a build (FreeBSD swap-backed memory disk), written by `rambake ci-ramdisk`.
# Swap-backed: pages stay in RAM and go to swap only under memory pressure, as PostgreSQL's CI
# does it. Soft updates (-U) and no atime keep metadata writes cheap. Run as root.
set -eu

RAMDISK_DIR=@RAMDISK_DIR@
RAMDISK_SIZE=@RAMDISK_SIZE@
# Empty: start with an empty RAM disk. The same folder as RAMDISK_DIR: move it in.
COPY_FROM=@COPY_FROM@
BUILD_JOBS=@BUILD_JOBS@
TEST_JOBS=@TEST_JOBS@

MD_UNIT=$(mdconfig -a -t swap -s "$RAMDISK_SIZE")
newfs -U -b 8192 "/dev/$MD_UNIT"
if [ -n "$COPY_FROM" ] && [ "$COPY_FROM" = "$RAMDISK_DIR" ]; then
  # Move the working tree aside, mount over its old place, copy it back in.
  mv -- "$RAMDISK_DIR" "$RAMDISK_DIR.orig"
  COPY_FROM="$RAMDISK_DIR.orig"
fi
mkdir -p -- "$RAMDISK_DIR"
mount -o noatime "/dev/$MD_UNIT" "$RAMDISK_DIR"
if [ -n "$COPY_FROM" ]; then
  du -sh "$COPY_FROM"
  cp -a "$COPY_FROM/." "$RAMDISK_DIR/"
fi

# With I/O off the disk, tests are no longer waiting on it: they may run up to 2 x CPUs.
echo "MD_UNIT=$MD_UNIT"
echo "BUILD_JOBS=$BUILD_JOBS"
echo "TEST_JOBS=$TEST_JOBS"
