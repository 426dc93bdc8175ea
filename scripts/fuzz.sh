#!/usr/bin/env bash
# Runs every Fuzz target in the module for the given time each.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-20s}
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for f in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
		echo "fuzz: $pkg $f ($t)"
		go test "$pkg" -run '^$' -fuzz "^$f\$" -fuzztime "$t"
	done
done
