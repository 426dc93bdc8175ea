#!/usr/bin/env bash
# Provisions everything pgbrain needs on a Debian-family machine:
# the PostgreSQL server, its development headers and pgvector 0.8+.
# Idempotent: when everything is present it only checks and exits.
set -euo pipefail

CACHE_DIR="${PGBRAIN_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pgbrain}"

say() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# The PostgreSQL major version to provision, unless PG_MAJOR names one: an
# installed server (the newest, 13 or later) as it is, so a machine that
# already has one (a CI image, a developer's laptop) gets no second server;
# else 15 where the distribution packages it (pgbrain's tests run on 15);
# else the distribution's own default (Ubuntu 24.04 packages only 16).
# pgbrain itself runs the newest installed server that has pgvector.
pick_pg_major() {
	local d n best=0
	for d in /usr/lib/postgresql/*/bin; do
		n=$(basename "$(dirname "$d")")
		case "$n" in *[!0-9]*|"") continue ;; esac
		if [ -x "$d/postgres" ] && [ "$n" -ge 13 ] && [ "$n" -gt "$best" ]; then best=$n; fi
	done
	if [ "$best" -gt 0 ]; then echo "$best"; return; fi
	if command -v apt-cache >/dev/null 2>&1; then
		# A fresh container has no package lists yet.
		ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt_update
		if apt-cache show postgresql-15 >/dev/null 2>&1; then echo 15; return; fi
		n=$(apt-cache depends postgresql 2>/dev/null | sed -n 's/^ *Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -n1)
		if [ -n "$n" ]; then echo "$n"; return; fi
	fi
	echo 15
}


SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
fi

need_root() {
	if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
		die "$1 needs root: run 'make setup' as root or install sudo"
	fi
}

apt_updated=0
apt_update() {
	[ "$apt_updated" -eq 0 ] || return 0
	need_root "reading the package lists"
	# For `make test` every update keeps the long descriptions (Translation-en,
	# see 4a): a plain update on an image set to fetch no languages deletes them.
	local langs=()
	[ "${PGBRAIN_SETUP_TESTS:-}" = 1 ] && langs=(-o Acquire::Languages=en)
	say "apt-get update"
	$SUDO apt-get update -qq "${langs[@]}" >&2
	apt_updated=1
}

apt_install() {
	command -v apt-get >/dev/null 2>&1 ||
		die "apt-get not found: pgbrain's set-up supports Debian and Ubuntu; install PostgreSQL ${PG_MAJOR} with pgvector 0.8+ by hand"
	need_root "installing $*"
	apt_update
	say "installing $*"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2
}

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

vector_installed() {
	[ -x "$PG_CONFIG" ] || return 1
	local ext
	ext="$("$PG_CONFIG" --sharedir)/extension/vector.control"
	[ -f "$ext" ] || return 1
	local ver
	ver=$(sed -n "s/^default_version *= *'\([0-9.]*\)'.*/\1/p" "$ext")
	case "$ver" in
		0.[0-7].*|"") return 1 ;;
	esac
	return 0
}

# Mirror of the running system's Debian archive, read from apt's own
# configuration (deb822 .sources files first, then one-line lists).
debian_mirror() {
	local f uri
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '
			/^URIs:/ { u=$2 }
			/^Suites:/ { for (i=2;i<=NF;i++) if ($i !~ /-security$/) s=1 }
			/^$/ { if (u!="" && s && u !~ /security/) { print u; exit } u=""; s=0 }
			END { if (u!="" && s && u !~ /security/) print u }' "$f" | head -n1)
		if [ -n "$uri" ]; then echo "$uri"; return; fi
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		uri=$(awk '$1=="deb" && $0 !~ /security/ { for (i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' "$f" | head -n1)
		if [ -n "$uri" ]; then echo "$uri"; return; fi
	done
}

# The suite whose source package is new enough: Debian's next release
# (pgvector 0.8 is in trixie); on Ubuntu the development series, which its
# archive names "devel".
next_release() {
	case "$1" in
		ubuntu:*) echo devel ;;
		*:buster) echo bullseye ;;
		*:bullseye) echo bookworm ;;
		*:bookworm) echo trixie ;;
		*:trixie) echo forky ;;
		*) echo testing ;;
	esac
}

build_pgvector() {
	need_root "installing pgvector"
	pkg_installed "postgresql-server-dev-${PG_MAJOR}" || apt_install "postgresql-server-dev-${PG_MAJOR}"
	for p in make gcc dpkg-dev; do pkg_installed "$p" || apt_install "$p"; done

	local mirror distro codename next components work lists
	mirror=$(debian_mirror)
	[ -n "$mirror" ] || die "no Debian mirror found in /etc/apt/sources.list*; install pgvector 0.8+ for PostgreSQL ${PG_MAJOR} by hand"
	distro=$(. /etc/os-release && echo "${ID:-debian}")
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	next=$(next_release "$distro:$codename")
	# Ubuntu keeps pgvector in universe.
	components=main
	[ "$distro" = ubuntu ] && components="main universe"
	say "building pgvector from the ${distro} source package (suite ${next}, mirror from apt sources)"

	work="$CACHE_DIR/pgvector-src"
	rm -rf "$work" && mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
	lists="$work/sources.list"
	echo "deb-src $mirror $next $components" >"$lists"
	local aptopts=(-o "Dir::Etc::SourceList=$lists" -o "Dir::Etc::SourceParts=-"
		-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
		-o "APT::Sandbox::User=root" -qq)
	apt-get "${aptopts[@]}" update >&2 || die "could not read deb-src index for '$next' from $mirror"
	(cd "$work" && apt-get "${aptopts[@]}" source --download-only pgvector >&2) ||
		die "could not download Debian source package pgvector from $mirror ($next)"
	local dsc
	dsc=$(ls "$work"/pgvector_*.dsc | head -n1)
	(cd "$work" && dpkg-source --no-check -x "$dsc" src >/dev/null) || die "could not unpack $dsc"
	# OPTFLAGS="" keeps -march=native out so the library runs on any x86-64.
	make -C "$work/src" -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >&2 || die "pgvector build failed (see output above)"
	$SUDO make -C "$work/src" -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install >&2 || die "pgvector install failed"
	say "pgvector $(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$("$PG_CONFIG" --sharedir)/extension/vector.control") installed"
}

PG_MAJOR="${PG_MAJOR:-$(pick_pg_major)}"
PG_BIN="/usr/lib/postgresql/${PG_MAJOR}/bin"
PG_CONFIG="${PG_BIN}/pg_config"

# 1. PostgreSQL server.
if [ ! -x "$PG_BIN/postgres" ]; then
	apt_install "postgresql-${PG_MAJOR}"
fi
[ -x "$PG_BIN/initdb" ] || die "PostgreSQL ${PG_MAJOR} binaries not found in $PG_BIN after install"

# 2. Development headers (pg_config lives there and the pgvector build needs them).
if ! pkg_installed "postgresql-server-dev-${PG_MAJOR}" && command -v dpkg-query >/dev/null 2>&1; then
	apt_install "postgresql-server-dev-${PG_MAJOR}"
fi

# 3. pgvector: the distribution package where it is 0.8 or later (Ubuntu
#    24.04 packages 0.6), else built from the source package.
if ! vector_installed; then
	candidate=$(apt-cache policy "postgresql-${PG_MAJOR}-pgvector" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	if [ -n "$candidate" ] && [ "$candidate" != "(none)" ] && dpkg --compare-versions "$candidate" ge 0.8; then
		apt_install "postgresql-${PG_MAJOR}-pgvector"
	elif [ -n "$candidate" ] && [ "$candidate" != "(none)" ]; then
		say "postgresql-${PG_MAJOR}-pgvector is ${candidate}, older than 0.8: building it instead"
	fi
fi
if ! vector_installed; then
	build_pgvector
fi
vector_installed || die "pgvector 0.8+ is still missing for PostgreSQL ${PG_MAJOR}"

# 4. For `make test` (PGBRAIN_SETUP_TESTS=1): a C compiler, which the race
#    detector's pass over the concurrent packages needs (cgo).
if [ "${PGBRAIN_SETUP_TESTS:-}" = 1 ] && ! command -v gcc >/dev/null 2>&1 && ! command -v cc >/dev/null 2>&1; then
	apt_install gcc
fi

# 4a. For `make test`: tests read real text nobody here wrote: Debian's
#     package records (apt-cache dumpavail, which needs the package lists)
#     and manual pages (a minimal image may have none).
if [ "${PGBRAIN_SETUP_TESTS:-}" = 1 ] && command -v apt-cache >/dev/null 2>&1; then
	ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1 || apt_update
	# The long descriptions (memory question sets, the Debian check) are in
	# apt's Translation-en lists, which an image set to Acquire::Languages
	# "none" (Debian's cloud and container images) never fetches, and
	# which a plain apt-get update there deletes again (apt_update asks
	# for them under make test).
	if ! ls /var/lib/apt/lists/*_i18n_Translation-en* >/dev/null 2>&1; then
		apt_updated=0 # the lists are what counts, not an update this run made
		apt_update
	fi
	if ! ls /usr/share/man/*/*.gz >/dev/null 2>&1; then
		apt_install manpages
	fi
	# The classifier's fingerprint test reads key-fingerprint pages of these.
	if [ ! -f /usr/share/man/man1/ssh.1.gz ] || [ ! -f /usr/share/man/man1/dpkg-buildpackage.1.gz ]; then
		apt_install openssh-client dpkg-dev
	fi
fi

# 4a'. For the query expansion measurement (tools/expansioneval, see
#     docs/retrieval.md): WordNet's synonyms, the scripted rephrasing model.
if [ "${PGBRAIN_SETUP_TESTS:-}" = 1 ] && command -v apt-cache >/dev/null 2>&1 && [ ! -f /usr/share/wordnet/index.noun ]; then
	apt_install wordnet-base
fi

# 4b. For `make test`: npm (any Node), which installs the pinned Node 22,
#     MCP conformance suite and TypeScript SDK of tests/mcp (never the
#     system Node).
if [ "${PGBRAIN_SETUP_TESTS:-}" = 1 ] && ! command -v npm >/dev/null 2>&1; then
	apt_install npm
fi
if [ "${PGBRAIN_SETUP_TESTS:-}" = 1 ]; then
	mcp="$(dirname "$0")/../tests/mcp"
	lock=$mcp/package-lock.json stamp=$mcp/node_modules/.package-lock.json
	node_pkg="node-$(uname -s | tr '[:upper:]' '[:lower:]')-$(uname -m | sed 's/x86_64/x64/; s/aarch64/arm64/')"
	node_ver=$(cat "$mcp/node-version")
	if [ ! -f "$stamp" ] || [ "$lock" -nt "$stamp" ] || [ "$mcp/node-version" -nt "$stamp" ] ||
		[ "$("$mcp/node_modules/$node_pkg/bin/node" --version 2>/dev/null)" != "v$node_ver" ]; then
		say "installing the MCP test tools (tests/mcp) and Node $node_ver ($node_pkg) from npm"
		npm ci --prefix "$mcp" --no-audit --no-fund --loglevel=error >&2 ||
			die "npm ci --prefix tests/mcp failed: check access to the npm registry"
		# The platform's Node binary package: no install script, not in the
		# lock file (which would then hold every platform's).
		npm install --prefix "$mcp" --no-save --no-audit --no-fund --loglevel=error "$node_pkg@$node_ver" >&2 ||
			die "installing $node_pkg@$node_ver failed: check access to the npm registry (no such package means no Node build for this platform)"
	fi
fi

# 5. Go modules.
if command -v go >/dev/null 2>&1; then
	go mod download >&2 || die "go mod download failed: check access to the Go module proxy"
else
	die "go not found on PATH: install Go 1.22+ (https://go.dev/doc/install)"
fi
say "ready: PostgreSQL ${PG_MAJOR} with pgvector"
