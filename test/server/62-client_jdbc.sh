#!/usr/bin/env bash
# kid from pgJDBC (Debian libpostgresql-jdbc-java) as a Java application uses
# it (runs alone or from run-all.sh): test/clients/java/KidJdbcTest.java, run
# by the headless JDK as a single-source program (compiled in memory, so no
# class file is written anywhere), on a database of its own.  pgJDBC speaks
# TCP only and the main cluster listens on its Unix socket only, so this
# script starts a cluster of its own on 127.0.0.1, at a port free at run
# time, trusting 127.0.0.1 alone.  Every check the program prints counts
# here; a missing JDK or pgJDBC is a failed check, never a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

JDBC_JAR=/usr/share/java/postgresql.jar
DB=kid_client_jdbc

# jdbc_cluster: the cluster "jdbc", listening on 127.0.0.1; sets PORT.  Other
# test runs share this machine, so the port is one nobody listens on now,
# picked at random; should another server bind it first, the start fails and
# another is tried.
jdbc_cluster() {
    cluster_init jdbc 0 "listen_addresses = '127.0.0.1'" || return 1 # port: below
    printf 'local all all trust\nhost all all 127.0.0.1/32 trust\n' >"$KID_TMP/jdbc/data/pg_hba.conf"
    for _ in $(seq 10); do
        PORT=$((20000 + RANDOM % 12000))
        (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && continue # taken
        echo "port = $PORT" >>"$KID_TMP/jdbc/data/postgresql.conf"
        cluster_start jdbc >/dev/null 2>&1 && return 0
    done
    tail -5 "$KID_TMP/jdbc/server.log"
    return 1
}

have_jdk() { command -v java >/dev/null && command -v javac >/dev/null; }
have_pgjdbc() { [ -f "$JDBC_JAR" ]; }
need "a JDK is installed (default-jdk-headless: java, javac)" have_jdk
need "pgJDBC is installed (libpostgresql-jdbc-java: $JDBC_JAR)" have_pgjdbc
if have_jdk && have_pgjdbc; then
    if jdbc_cluster && kpsql "$PORT" -d postgres -c "CREATE DATABASE $DB" && kpsql "$PORT" -d $DB -c "CREATE EXTENSION kid"; then
        # -XX:-UsePerfData: no hsperfdata file under /tmp.
        # TZ=UTC: pgJDBC writes a Timestamp in the JVM's zone, and the
        # test compares the text the server reports.
        TZ=UTC java -XX:-UsePerfData -cp "$JDBC_JAR" test/clients/java/KidJdbcTest.java 127.0.0.1 "$PORT" $DB postgres \
            >"$KID_TMP/jdbc.out" 2>&1
        count_program_checks pgJDBC "$KID_TMP/jdbc.out" $?
        cluster_stop jdbc
    else
        check "pgJDBC: a cluster on 127.0.0.1 with a kid database" false
    fi
fi

kid_finish
