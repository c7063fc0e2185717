#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# examples/kubernetes/build-image.sh: the container image's build, without a container runtime.
# It performs the Dockerfile's build stage on this machine (Debian 12, like the image): the
# tracked sources copied to a fresh directory (what `COPY . .` takes, the .dockerignore'd build
# trees left out), autoreconf, configure, make, `make install DESTDIR=STAGING`, strip; then
# checks what the runtime stage relies on:
#   - every package of the Dockerfile's BUILD_DEPS is installed here (else it says which);
#   - the staged binary runs (`rocketsql --version`, `--help` names serve);
#   - ldd finds every library it needs, and each library it links directly belongs to a package
#     of RUNTIME_DEPS (or libc6, in every Debian image): the runtime stage installs enough.
#
#   examples/kubernetes/build-image.sh [WORK_DIR]     (default: build/image; emptied first)
#
# Takes a full optimised build (about 20 s on a 2-core machine). Exit 0 when every check
# passed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DOCKERFILE="$HERE/Dockerfile"
WORK=${1:-$REPO/build/image}
say() { printf 'build-image: %s\n' "$*"; }
die() { printf 'build-image: error: %s\n' "$*" >&2; exit 1; }

# ARG NAME="..." of the Dockerfile, continuation lines joined
dockerfile_arg() {
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$DOCKERFILE" |
        sed -n "s/^ARG $1=\"\\(.*\\)\"\$/\\1/p" | tr -s ' \t' ' '
}
read -r -a BUILD_DEPS <<<"$(dockerfile_arg BUILD_DEPS)"
read -r -a RUNTIME_DEPS <<<"$(dockerfile_arg RUNTIME_DEPS)"
[ "${#BUILD_DEPS[@]}" -gt 5 ] || die "no BUILD_DEPS in $DOCKERFILE"
[ "${#RUNTIME_DEPS[@]}" -gt 5 ] || die "no RUNTIME_DEPS in $DOCKERFILE"
grep -q '^FROM debian:12-slim' "$DOCKERFILE" || die "the Dockerfile is not based on debian:12-slim"

command -v dpkg-query >/dev/null || die "dpkg-query not found: this script expects Debian (the image's base)"
missing=()
for p in "${BUILD_DEPS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ "${#missing[@]}" = 0 ] || die "build dependencies not installed: ${missing[*]} (scripts/setup installs them)"
say "build dependencies installed: ${#BUILD_DEPS[@]} packages"

# COPY . . : the tracked files of the working tree, as they are now
rm -rf "$WORK"
mkdir -p "$WORK/src" "$WORK/staging"
(cd "$REPO" && git ls-files -z --cached |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -) | tar -C "$WORK/src" -xf -
say "sources: $(find "$WORK/src" -type f | wc -l) files in $WORK/src"

# RUN: the build stage's steps, the same commands
T0=$(date +%s)
(
    cd "$WORK/src"
    rm -rf build && autoreconf -fi
    mkdir build && cd build
    ../configure --prefix=/usr/local --disable-unit-tests CFLAGS='-O2 -g'
    make -j"$(nproc)"
    make install DESTDIR="$WORK/staging"
    strip --strip-debug "$WORK/staging/usr/local/bin/rocketsql"
) >"$WORK/build.log" 2>&1 || { tail -n 40 "$WORK/build.log" >&2; die "the build failed (log: $WORK/build.log)"; }
BIN="$WORK/staging/usr/local/bin/rocketsql"
[ -x "$BIN" ] || die "make install put no usr/local/bin/rocketsql in $WORK/staging"
say "built and staged in $(($(date +%s) - T0)) s: $(du -sh "$WORK/staging/usr/local" | cut -f1) under /usr/local"

# the runtime stage: the binary runs, and its libraries come from RUNTIME_DEPS
version=$(env -u LD_LIBRARY_PATH "$BIN" --version) || die "the staged rocketsql does not run"
env -u LD_LIBRARY_PATH "$BIN" --help | grep -q ' serve ' || die "the staged rocketsql --help names no serve"
say "runs: $version"
if ldd "$BIN" | grep -q 'not found'; then
    die "libraries not found: $(ldd "$BIN" | grep 'not found' | tr '\n' ' ')"
fi
bad=()
while read -r lib; do
    path=$(ldd "$BIN" | awk -v l="$lib" '$1 == l { print $3 }')
    [ -n "$path" ] || die "ldd does not resolve $lib"
    pkg=$(dpkg-query -S "$path" 2>/dev/null || dpkg-query -S "/usr$path" 2>/dev/null ||
        dpkg-query -S "$(readlink -f "$path")" 2>/dev/null || true)
    pkg=${pkg%%:*}
    [ -n "$pkg" ] || die "$lib ($path) belongs to no Debian package"
    case " ${RUNTIME_DEPS[*]} libc6 " in
        *" $pkg "*) ;;
        *) bad+=("$lib ($pkg)") ;;
    esac
done < <(objdump -p "$BIN" | awk '$1 == "NEEDED" { print $2 }')
[ "${#bad[@]}" = 0 ] || die "linked but not in the Dockerfile's RUNTIME_DEPS: ${bad[*]}"
say "ldd finds every library; each one linked directly is in RUNTIME_DEPS"
say "OK: $BIN"
