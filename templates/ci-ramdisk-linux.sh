#!/bin/sh
# CI RAM disk for a BitBake build (Linux tmpfs), written by `rambake ci-ramdisk`.
# The tmpfs is never mounted noexec: BitBake runs the native tools it builds from TMPDIR.
# Run as root (or with sudo) before the build step.
set -eu

RAMDISK_DIR=@RAMDISK_DIR@
RAMDISK_SIZE=@RAMDISK_SIZE@
RAMDISK_INODES=@RAMDISK_INODES@
# Empty: start with an empty RAM disk. The same folder as RAMDISK_DIR: move it in.
COPY_FROM=@COPY_FROM@
BUILD_JOBS=@BUILD_JOBS@
TEST_JOBS=@TEST_JOBS@

if [ -n "$COPY_FROM" ] && [ "$COPY_FROM" = "$RAMDISK_DIR" ]; then
  # Move the working tree aside, mount over its old place, copy it back in.
  mv -- "$RAMDISK_DIR" "$RAMDISK_DIR.orig"
  COPY_FROM="$RAMDISK_DIR.orig"
fi
mkdir -p -- "$RAMDISK_DIR"
mount -t tmpfs -o "size=$RAMDISK_SIZE,nr_inodes=$RAMDISK_INODES,mode=0755,noatime" rambake-ci "$RAMDISK_DIR"
if [ -n "$COPY_FROM" ]; then
  du -sh -- "$COPY_FROM"
  cp -a -- "$COPY_FROM/." "$RAMDISK_DIR/"
fi

# With I/O off the disk, tests are no longer waiting on it: they may run up to 2 x CPUs.
echo "BUILD_JOBS=$BUILD_JOBS"
echo "TEST_JOBS=$TEST_JOBS"
