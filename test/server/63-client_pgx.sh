#!/usr/bin/env bash
# kid from Go's pgx v4 (Debian golang-github-jackc-pgx-v4-dev) as a Go
# application uses it (runs alone or from run-all.sh; uses the "main" cluster
# over its Unix socket): test/clients/go/main.go on a database of its own.
# It is built offline in GOPATH mode against Debian's Go library sources
# (/usr/share/gocode): no module proxy, no network.  The build cache is kept
# outside the tree, in KID_GO_CACHE (default /var/cache/kid/go-build), so a
# later run does not compile pgx again; the program goes to this script's
# temporary directory.  Every check the program prints counts here; a missing
# Go or pgx is a failed check, never a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

GOPATH_DEBIAN=/usr/share/gocode
GO_CACHE=${KID_GO_CACHE:-/var/cache/kid/go-build}
DB=kid_client_pgx

have_go() { command -v go >/dev/null; }
have_pgx() { [ -f "$GOPATH_DEBIAN/src/github.com/jackc/pgx/v4/conn.go" ]; }
need "Go is installed (golang-go)" have_go
need "pgx v4 is installed (golang-github-jackc-pgx-v4-dev)" have_pgx
build() {
    mkdir -p "$GO_CACHE" &&
        (cd test/clients/go && env GO111MODULE=off GOPATH=$GOPATH_DEBIAN GOCACHE="$GO_CACHE" GOENV=off \
            GOFLAGS= GOPROXY=off GOTOOLCHAIN=local go build -o "$KID_TMP/kid-pgx-test" .)
}
if have_go && have_pgx; then
    need "pgx: the test program builds offline against Debian's pgx" build
fi
if [ -x "$KID_TMP/kid-pgx-test" ]; then
    ensure_main_cluster || exit 1
    if main_db $DB; then
        PGHOST=$KID_MAIN_SOCK PGPORT=$KID_MAIN_PORT PGUSER=postgres PGDATABASE=$DB "$KID_TMP/kid-pgx-test" \
            >"$KID_TMP/pgx.out" 2>&1
        count_program_checks pgx "$KID_TMP/pgx.out" $?
        kpsql "$KID_MAIN_PORT" -d postgres -c "DROP DATABASE $DB"
    else
        check "pgx: a database with kid" false
    fi
fi

kid_finish
