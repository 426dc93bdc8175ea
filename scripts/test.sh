#!/usr/bin/env bash
# Runs vet and every test against one ephemeral PostgreSQL cluster shared by
# all test binaries of the run (TEST_DATABASE_URL). The cluster is removed
# afterwards, or kept for inspection when a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

# The race detector (it needs cgo, so a C compiler) runs the tests that
# drive goroutines: whole packages where nearly every test does, and in four
# packages the tests named in race_tests (the rest of those packages runs
# without it, in the same run). Most of a test's time is spent in
# PostgreSQL, which the detector does not watch, so a test that calls the
# database one statement at a time gains nothing from it. A new test that
# starts goroutines joins race_tests.
race_whole=(./internal/capture ./internal/crossmodal)
race_split=(./internal/ingest ./internal/audit ./internal/mcpserver ./internal/longmemeval)
race_tests='^('
race_tests+='TestPipelineKeepsFileOrderAndProgress|TestConcurrentWritersKeepTermStatisticsExact|TestImportDocsInParallel|TestImportPreparedStoresWhatImportDocsStores|TestImportStopsWhenCancelled|TestInterruptedBulkImportLeavesASearchableBrain|TestBulkImportKeepsSearchesInteractive|TestBulkImportRunsAtLowPriority|TestReadFileRefusesOversizedFilesUnread'
race_tests+='|TestAsync.*|TestConcurrentWritersFormOneChain|TestOutageRowsChainedInCallOrder|TestWriterReportsOncePerKind'
race_tests+='|TestHTTPConcurrentClientsAreAllRecorded|TestHTTPShutdownDeliversCallsInFlight|TestProgressForLongCalls|TestCancelStopsServer|TestAnswerDoesNotWaitForAudit|TestBrokenSinksNeverFailACall|TestStopAnswersCallsInFlight|TestPipedRequestsAllAnsweredOnEOF|TestMalformedFramesAreAnswered|TestHTTPAuthOriginAndRate|TestHTTPFailedAuthenticationsAreLimited|TestAuditEventsAndSpans|TestToolCalls'
race_tests+='|TestRun.*|TestHybridRun|TestDropAfterInterrupt'
race_tests+=')$'

# A renamed test would silently leave the race pass: every name in
# race_tests (each top-level alternative, a pattern such as TestAsync.*
# or TestFoo(Bar|Baz) included) must still match a test of the packages
# it is run in.
check_race_tests() {
	local out listed name rc missing=() invalid=() names=()
	if ! out=$(go test -list . "${race_split[@]}"); then
		echo "test: listing the tests of ${race_split[*]} for race_tests failed (above)" >&2
		return 1
	fi
	listed=$(grep -E '^(Test|Example|Fuzz)' <<<"$out" || true)
	# Split at the | outside parentheses only.
	mapfile -t names < <(awk '{
		d = 0; s = ""
		for (i = 1; i <= length($0); i++) {
			c = substr($0, i, 1)
			if (c == "(") d++
			else if (c == ")") d--
			if (c == "|" && d == 0) { print s; s = "" } else s = s c
		}
		print s
	}' <<<"${race_tests:2:${#race_tests}-4}")
	for name in "${names[@]}"; do
		rc=0
		grep -qxE -- "$name" <<<"$listed" 2>/dev/null || rc=$?
		case $rc in
		0) ;;
		1) missing+=("$name") ;;
		*) invalid+=("$name") ;;
		esac
	done
	if [ "${#invalid[@]}" -gt 0 ]; then
		echo "test: race_tests in scripts/test.sh holds patterns grep -E cannot read: ${invalid[*]}" >&2
	fi
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "test: race_tests in scripts/test.sh names tests that do not exist (renamed?): ${missing[*]}" >&2
	fi
	[ "${#invalid[@]}" -eq 0 ] && [ "${#missing[@]}" -eq 0 ]
}
all_tests() {
	if [ "$(go env CGO_ENABLED)" != 1 ]; then
		echo "test: no C compiler, so the race detector is left out (apt-get install gcc adds it)" >&2
		go test -count=1 ./...
		return
	fi
	local others race_out split_out race_pid split_pid rc=0 race_rc=0 split_rc=0
	others=$(go list ./... | grep -vxF -f <(go list "${race_whole[@]}" "${race_split[@]}"))
	race_out=$(mktemp "${TMPDIR:-/tmp}/pgbrain-race.XXXXXX")
	split_out=$(mktemp "${TMPDIR:-/tmp}/pgbrain-split.XXXXXX")
	# Both halves run even when the first fails, so one failure does not
	# hide the other half's results.
	{
		whole_rc=0
		go test -race -count=1 "${race_whole[@]}" || whole_rc=$?
		go test -race -count=1 -run "$race_tests" "${race_split[@]}" && exit "$whole_rc"
	} >"$race_out" 2>&1 &
	race_pid=$!
	go test -count=1 -skip "$race_tests" "${race_split[@]}" >"$split_out" 2>&1 &
	split_pid=$!
	# shellcheck disable=SC2086 # one package path per word
	go test -count=1 $others || rc=$?
	wait "$split_pid" || split_rc=$?
	wait "$race_pid" || race_rc=$?
	echo "test: the tests of goroutines, under the race detector:"
	cat "$race_out"
	echo "test: the other tests of those packages:"
	cat "$split_out"
	rm -f "$race_out" "$split_out"
	[ "$rc" -eq 0 ] && [ "$race_rc" -eq 0 ] && [ "$split_rc" -eq 0 ]
}

if [ -n "${TEST_DATABASE_URL:-}" ]; then
	make -s vet
	check_race_tests
	all_tests
	exit
fi

# The cluster starts (initdb, a few seconds) while vet runs.
dir=$(mktemp -d "${TMPDIR:-/tmp}/pgbrain-test.XXXXXX")
started=$(mktemp "${TMPDIR:-/tmp}/pgbrain-test-url.XXXXXX")
go run ./testdb/cmd/testcluster start "$dir" >"$started" &
start_pid=$!
vet_rc=0
make -s vet || vet_rc=$?
check_race_tests || vet_rc=$?
start_rc=0
wait "$start_pid" || start_rc=$?
url=$(cat "$started")
rm -f "$started"
if [ "$start_rc" -ne 0 ]; then
	# The cluster's home (on /dev/shm when there is one, named in
	# $dir/home) is kept for its server log; stop removes both.
	echo "test: starting the test cluster failed (above); remove what it left with: go run ./testdb/cmd/testcluster stop $dir" >&2
	exit 1
fi
if [ "$vet_rc" -ne 0 ]; then
	go run ./testdb/cmd/testcluster stop "$dir"
	exit 1
fi
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
