#!/usr/bin/env bash
# make clean: stop the demo's embedded cluster and delete it with its home,
# then the build output. As root the cluster's data lives outside the clone
# (under /var/lib/pgbrain, owned by the server's user), so deleting the clone
# alone would leave it behind, still running.
set -euo pipefail
cd "$(dirname "$0")/.."
home=${PGBRAIN_DEMO_HOME:-$PWD/.pgbrain-demo}
if [ -d "$home" ]; then
	pgbrain=(bin/pgbrain)
	[ -x bin/pgbrain ] || pgbrain=(go run ./cmd/pgbrain)
	dir=$(PGBRAIN_HOME=$home "${pgbrain[@]}" db status 2>/dev/null | sed -n 's/^dir: *//p' || true)
	PGBRAIN_HOME=$home "${pgbrain[@]}" db stop || true
	# Only ever delete a cluster directory pgbrain itself would choose.
	case "$dir" in
	"$home"/*) ;;
	/var/lib/pgbrain/????????????????) echo "removing the demo cluster $dir" >&2; rm -rf "$dir" ;;
	esac
	echo "removing the demo home $home" >&2
	rm -rf "$home"
fi
rm -rf bin
