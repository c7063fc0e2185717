#!/usr/bin/env bash
# docs/CONNECTORS.md and docs/ERRORS.md are generated from the option tables
# and the error map; this fails when a committed copy is stale.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
"$RSQL" --list-options=md >"$T/connectors.md"
diff -u "$RSQL_SRCDIR/docs/CONNECTORS.md" "$T/connectors.md" ||
    fail "docs/CONNECTORS.md is stale: regenerate with 'rocketsql --list-options=md > docs/CONNECTORS.md'"
ok "docs/CONNECTORS.md is current"
"$RSQL" --list-errors=md >"$T/errors.md"
diff -u "$RSQL_SRCDIR/docs/ERRORS.md" "$T/errors.md" ||
    fail "docs/ERRORS.md is stale: regenerate with 'rocketsql --list-errors=md > docs/ERRORS.md'"
ok "docs/ERRORS.md is current"
