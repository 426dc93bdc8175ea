#!/usr/bin/env bash
# Runs vet and every test against one ephemeral PostgreSQL cluster shared by
# all test binaries of the run (TEST_DATABASE_URL). The cluster is removed
# afterwards, or kept for inspection when a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

make -s vet

if [ -n "${TEST_DATABASE_URL:-}" ]; then
	exec go test -count=1 ./...
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pgbrain-test.XXXXXX")
url=$(go run ./testdb/cmd/testcluster start "$dir")
set +e
TEST_DATABASE_URL="$url" go test -count=1 ./...
rc=$?
set -e
if [ $rc -eq 0 ]; then
	go run ./testdb/cmd/testcluster stop "$dir"
else
	echo "test: failures above; the test cluster is kept: psql '$url'" >&2
	echo "test: remove it with: go run ./testdb/cmd/testcluster stop $dir" >&2
fi
exit $rc
