#!/usr/bin/env bash
# The demo: start the embedded cluster, import the shipped sample brain (the
# Go standard library's documentation) and print the answers to a few
# queries. It uses its own home so it never touches your ~/.pgbrain.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/pgbrain}
export PGBRAIN_HOME=${PGBRAIN_DEMO_HOME:-$PWD/.pgbrain-demo}
unset PGBRAIN_DATABASE_URL DATABASE_URL

# Commands are echoed in bold on a terminal, plainly when stderr is redirected.
if [ -t 2 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
# shown as a person would type it: plain words bare, a query in double
# quotes, anything else in the shell's own quoting
shown() {
	case $1 in
	*[!A-Za-z0-9_./:=+-]*) case $1 in *[\"\$\`\\]*) printf ' %q' "$1" ;; *) printf ' "%s"' "$1" ;; esac ;;
	*) printf ' %s' "$1" ;;
	esac
}
step() { printf '\n%s$' "$bold" >&2; for a in "$@"; do shown "$a" >&2; done; printf '%s\n' "$plain" >&2; "$@"; }

step "$bin" db start
step "$bin" init
step "$bin" import sample/brain
for q in "read a file line by line" "http client timeout" "sort a slice with a custom comparator" "sha256 checksum of a file"; do
	step "$bin" query --limit 3 "$q"
done
printf '\nThe demo brain lives in %s (its server keeps running). Try: PGBRAIN_HOME=%s %s query "your question"\n' "$PGBRAIN_HOME" "$PGBRAIN_HOME" "$bin" >&2
printf 'Stop its server and remove it with: make clean\n' >&2
