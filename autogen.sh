#!/bin/sh
# Regenerate the autotools files (configure, Makefile.in).
set -e
cd "$(dirname "$0")"
autoreconf -fi
