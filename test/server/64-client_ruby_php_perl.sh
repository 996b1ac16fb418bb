#!/usr/bin/env bash
# ruby-pg, PHP's pgsql and Perl's DBD::Pg against kid, as an application uses
# them (runs alone or from run-all.sh; uses the "main" cluster over its Unix
# socket): Debian's ruby-pg, php-pgsql (with php-cli) and libdbd-pg-perl, each
# program of test/clients/ruby, php and perl on a database of its own.  Every
# check the programs print counts here (run_client_test); a library that is
# missing is a failed check, never a skip.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." && source test/lib.sh || exit 1

ensure_main_cluster || exit 1
# Debian's interpreters, the ones the packages install into.
run_client_test "ruby-pg" kid_client_ruby /usr/bin/ruby test/clients/ruby/test_pg.rb
run_client_test "PHP pgsql" kid_client_php /usr/bin/php test/clients/php/test_pgsql.php
run_client_test "DBD::Pg" kid_client_perl /usr/bin/perl test/clients/perl/test_dbd_pg.pl

kid_finish
