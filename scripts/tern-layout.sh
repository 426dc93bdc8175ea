#!/usr/bin/env bash
# Prints a temporary folder holding pgbrain's SQL in the layout the stock
# tern CLI expects: numbered migrations at the root, functions/ and triggers/
# beside them (where the migrations' {{ template }} calls find them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/pgbrain-tern.XXXXXX")
cp "$root"/sql/*.sql "$out"/
cp -r "$root/functions" "$root/triggers" "$out"/
echo "$out"
