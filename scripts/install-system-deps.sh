#!/usr/bin/env bash
# Install the Debian packages advisor's tests and demo need, only those missing.
# postgresql-15: a real server for the collector tests (and pgbench); postgresql-15-repack:
# the real pg_repack the generated postgres_repack.sh is tested with; fio: the reference
# benchmark engine; fdisk/e2fsprogs/util-linux: GPT partitions, ext4 and loop devices for
# the storage tests; fuse3/libfuse3-3: the emulated HDD; chromium: the HTML report check;
# xfsprogs/btrfs-progs: file placement on XFS, and btrfs reported as unknown; libaio1: native
# AIO for the bench's queued reads (python-libaio loads libaio.so.1); systemd: systemd-analyze
# verify checks the units `advisor schedule` writes (about 10 MB; it installs and verifies in a
# container without running as PID 1); jq: the JSON examples of docs/report.md, run by the docs tests.
set -euo pipefail
packages=(postgresql-15 postgresql-15-repack fio fdisk e2fsprogs util-linux mount fuse3 libfuse3-3 chromium kmod xfsprogs btrfs-progs libaio1 systemd jq)
missing=()
for pkg in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "missing Debian packages: ${missing[*]} (run as root or install them)" >&2
        exit 1
    fi
    echo "installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# A fresh machine may not have the loop module's device nodes or /dev/fuse yet.
modprobe loop 2>/dev/null || true
modprobe fuse 2>/dev/null || true
