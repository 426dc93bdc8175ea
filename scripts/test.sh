#!/usr/bin/env bash
# Runs vet and every test against one ephemeral PostgreSQL cluster shared by
# all test binaries of the run (TEST_DATABASE_URL). The cluster is removed
# afterwards, or kept for inspection when a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

make -s vet

# The packages that share state between goroutines run once more under the
# race detector, which needs cgo (a C compiler).
race_pkgs=(./client/ingest ./client/audit ./client/mcpserver ./client/capture ./client/longmemeval ./client/crossmodal)
all_tests() {
	go test -count=1 ./... || return
	if [ "$(go env CGO_ENABLED)" = 1 ]; then
		go test -race -count=1 "${race_pkgs[@]}"
	else
		echo "test: no C compiler, so the race-detector pass is left out (apt-get install gcc adds it)" >&2
	fi
}

if [ -n "${TEST_DATABASE_URL:-}" ]; then
	all_tests
	exit
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pgbrain-test.XXXXXX")
url=$(go run ./testdb/cmd/testcluster start "$dir")
set +e
TEST_DATABASE_URL="$url" all_tests
rc=$?
set -e
if [ $rc -eq 0 ]; then
	go run ./testdb/cmd/testcluster stop "$dir"
else
	echo "test: failures above; the test cluster is kept: psql '$url'" >&2
	echo "test: remove it with: go run ./testdb/cmd/testcluster stop $dir" >&2
fi
exit $rc
