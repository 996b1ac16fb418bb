# test/server/lib/regress_files.sh - PostgreSQL's own regression files, for
# the server tests that run them against kid (sourced by
# test/server/12-catalog_sanity.sh and test/server/12-uuid_core.sh, after
# test/lib.sh).
#
# regress_files FILE...: the FILEs of src/test/regress in the source of the
# server's release (sql/uuid.sql, expected/uuid.out, regress.c), extracted
# into $KID_TMP/regress from the tarball test/tools/pg_source.sh gives
# (REGRESS_TARBALL: its file name).  Returns 0; 2 when they are not to be
# had, the reason in REGRESS_WHY (for a skip); 1 on a failure, said (a
# tarball whose checksum is wrong, a file not in it).
#
# Only on 18 (the vendored release tarball) and 19 (Debian's source package
# of the installed 19, downloaded from the mirror apt uses).  Debian's
# packages of 15 and 17 do not ship the regression files, this machine's
# mirror has not their source packages, and the tests never ran them there:
# a mirror that has them does not bring them in unnoticed.
#
# regress_files --vendored FILE...: the same from the vendored release
# tarball (test/tools/pg_source.sh --vendored: 18.6's), whatever the
# server's major, for a test that runs them by difference (with kid and
# without, on the same server: test/server/12-catalog_sanity.sh).
regress_files() {
    local major tarball rc what=$PG_CONFIG
    major=$("$PG_CONFIG" --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
    if [ "${1:-}" = --vendored ]; then
        what=--vendored
        shift
    else
        case $major in
        18 | 19) ;;
        *)
            REGRESS_WHY="PostgreSQL $major: Debian's packages do not ship its regression files, and kid's tests never ran them"
            return 2
            ;;
        esac
    fi
    rm -rf "$KID_TMP/regress"
    tarball=$(test/tools/pg_source.sh "$what" 2>"$KID_TMP/pg_source.log")
    rc=$?
    if [ $rc -eq 2 ]; then
        REGRESS_WHY="PostgreSQL $major: no source tarball: $(tr '\n' ' ' <"$KID_TMP/pg_source.log")"
        [ "$what" = "$PG_CONFIG" ] || REGRESS_WHY="no vendored release: $(tr '\n' ' ' <"$KID_TMP/pg_source.log")"
        return 2
    elif [ $rc -ne 0 ]; then
        cat "$KID_TMP/pg_source.log"
        return 1
    fi
    REGRESS_TARBALL=$(basename "$tarball")
    # The tarball's top directory is named after the release (postgresql-18.6,
    # postgresql-19rc1): stripped.
    mkdir -p "$KID_TMP/regress" &&
        tar -xf "$tarball" -C "$KID_TMP/regress" --strip-components=4 --wildcards \
            $(for f in "$@"; do echo "*/src/test/regress/$f"; done) ||
        { echo "$tarball: not all of $* in its src/test/regress"; return 1; }
}
