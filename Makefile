# kid - k-ordered unique id types for PostgreSQL.  Built with PGXS.
#
#   make            build the extension            make install    install it
#   make demo       install what the demo needs, build, install, and run a demo
#                   on a throwaway cluster         (README: set-up command 1)
#   make test       install everything needed and run every test
#                   (README: set-up command 2; .ci/run calls exactly this)
#   make dist       the PGXN archive kid-VERSION.zip, from git (HEAD)
# The test, demo and benchmark targets are in test/test.mk.

EXTENSION  = kid
EXTVERSION = $(shell grep default_version $(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")

# src/core: plain C++17, no PostgreSQL header, unit-tested on its own.
CORE_SRCS = $(sort $(wildcard src/core/*.cpp))
# src/pg: the PostgreSQL boundary, one file per concern (a scheme's type, the
# lease, the horizon, the partition worker ...).
PG_SRCS   = $(sort $(wildcard src/pg/*.cpp))

MODULE_big = kid
OBJS = $(CORE_SRCS:.cpp=.o) $(PG_SRCS:.cpp=.o)

# sql/ holds only the installed scripts, committed: the install script is
# generated from src/sql/ by src/sql/build-install-script.pl (CONTRIBUTING.md,
# "How the install script is built"); upgrade scripts are written by hand.
KID_SQL = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(sort $(KID_SQL) $(wildcard sql/$(EXTENSION)--*--*.sql))

# Regression tests: the scripts in test/sql (sql/ holds the installed
# scripts), their expected output in expected/.  pg_regress reads test/sql
# through --inputdir; it takes the expected output from ./expected, which is
# where PostgreSQL 16 and later look by default (--expecteddir=.) and where
# 15 looks because the output directory is the current one (15 reads
# expected/ from the output directory).  Results go to results/ and
# regression.diffs, as for any PGXS extension.
REGRESS = $(sort $(basename $(notdir $(wildcard test/sql/*.sql))))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -Isrc -DKID_VERSION='"$(EXTVERSION)"'
PG_CXXFLAGS = -std=c++17 -Wno-register -Wall -Wextra -Wno-unused-parameter
SHLIB_LINK += -lstdc++
# make SANITIZE=1: kid built with AddressSanitizer and UndefinedBehaviorSanitizer
# (test/sanitize.sh runs the regression suite against it; the server then
# needs the ASan runtime in LD_PRELOAD).
ifeq ($(SANITIZE),1)
PG_CXXFLAGS += -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SHLIB_LINK += -fsanitize=address,undefined
endif
# The JIT bitcode step would compile C++ with clang's defaults; kid's
# functions are tiny and gain nothing from inlining into JIT code.
override with_llvm = no


# Without pg_config (a fresh machine) only the targets that install it work:
# make demo, make test, make deps; anything else stops with what to install.
PGXS := $(shell command -v $(PG_CONFIG) >/dev/null 2>&1 && $(PG_CONFIG) --pgxs)
ifneq ($(PGXS),)
include $(PGXS)
else ifeq ($(filter demo deps-demo test deps,$(MAKECMDGOALS)),)
$(error $(PG_CONFIG) not found: install postgresql-server-dev-15 (test/tools/install-deps.sh --demo), set PG_CONFIG, or run make demo, which installs what it needs)
endif

# PGXS tracks no header dependencies; every object depends on every header.
$(OBJS): $(wildcard src/core/*.h src/pg/*.h)

# A build is for one PostgreSQL: the one PG_CONFIG names.  PGXS does not track
# a change of PG_CONFIG, so objects built for 15 would be linked and installed
# into 18 (and the server would not start).  .kid-built-for holds what the
# build depends on (the server's version, headers and library directory, and
# the sanitizer switch); it is rewritten only when that changes, and every
# object depends on it, so "make install PG_CONFIG=other" rebuilds first (git's
# GIT-CFLAGS works the same way).
KID_BUILT_FOR = .kid-built-for
# (Asked only when pg_config exists: on a fresh machine make demo and make
# test install it first, and would otherwise start with make's own
# "pg_config: No such file or directory".)
KID_BUILD_ID := $(if $(PGXS),$(shell $(PG_CONFIG) --version) ($(shell $(PG_CONFIG) --includedir-server), $(shell $(PG_CONFIG) --pkglibdir)) SANITIZE=$(SANITIZE))
$(KID_BUILT_FOR): FORCE
	@if [ "$$(cat $@ 2>/dev/null)" != '$(KID_BUILD_ID)' ]; then \
		[ ! -f $@ ] || echo "kid was built for $$(cat $@); rebuilding for $(KID_BUILD_ID)"; \
		echo '$(KID_BUILD_ID)' > $@; fi
$(OBJS): $(KID_BUILT_FOR)
.PHONY: FORCE
FORCE:
EXTRA_CLEAN += $(KID_BUILT_FOR)

# make installcheck runs pg_regress against a running server (PGHOST,
# PGPORT, ...).  Its tests generate ids, which needs kid in that server's
# shared_preload_libraries: without it most of them would fail one by one,
# so this stops first and says why.  kid's settings exist in a backend
# exactly when kid is loaded at its start.
installcheck: kid-preloaded
.PHONY: kid-preloaded
kid-preloaded:
	@loaded=$$($(KID_AS_POSTGRES) '$(bindir)/psql' -X -A -t -d postgres -c "SELECT count(*) FROM pg_settings WHERE name = 'kid.node_id'") || \
		{ echo "make installcheck: cannot reach the server to test (PGHOST, PGPORT, PGUSER)"; exit 1; }; \
	[ "$$loaded" = 1 ] || { \
		echo "make installcheck: kid is not preloaded on the server it tests."; \
		echo "The tests generate ids, which needs shared_preload_libraries = 'kid' in its"; \
		echo "postgresql.conf and a restart (README.md, Install; docs/testing.md)."; exit 1; }
# As root without PGUSER (sudo make installcheck on a Debian server), the
# check and pg_regress run as the postgres OS user: Debian's servers let
# local connections in by peer authentication, where the OS user is the role,
# root has no role, and PGUSER=postgres is refused to root.
ifneq ($(filter installcheck,$(MAKECMDGOALS)),)
ifeq ($(PGUSER)$(shell id -u),0)
ifneq ($(shell id -u postgres 2>/dev/null),)
KID_AS_POSTGRES = cd / && runuser -u postgres --
pg_regress_installcheck = test/tools/installcheck-as-postgres.sh $(top_builddir)/src/test/regress/pg_regress \
	--inputdir=$(srcdir) --bindir='$(bindir)' $(pg_regress_locale_flags) $(EXTRA_REGRESS_OPTS)
endif
endif
endif

# A changed source flows into the committed script.  After a clone the sources
# may look newer: regenerating then changes nothing (make test checks that);
# without perl the committed script is installed as it is.
all: $(KID_SQL)
$(KID_SQL): $(wildcard src/sql/*)
	@if command -v perl >/dev/null; then \
		perl src/sql/build-install-script.pl > $@.tmp && { cmp -s $@.tmp $@ || echo "regenerated $@"; } && mv $@.tmp $@; \
	else echo "perl not found: $@ not regenerated"; touch $@; fi
# Fails when the committed install script is not what src/sql/ generates, and
# when the scripts of sql/ and the built library do not name the same C entry
# points (src/sql/check-entry-points.pl; the macros that make them list none).
.PHONY: check-install-script
check-install-script: $(shlib)
	@perl src/sql/build-install-script.pl | diff -u $(KID_SQL) - || \
		{ echo "$(KID_SQL) is out of date: run make and commit it"; exit 1; }
	@perl src/sql/check-entry-points.pl $(shlib) src/sql/entry-points.allowed $(wildcard sql/$(EXTENSION)--*.sql)

# make dist: the PGXN archive kid-VERSION.zip of the committed tree (HEAD),
# every file under kid-VERSION/; what .gitattributes marks export-ignore
# (CI configuration, git's own files) is left out, and so is everything
# git ignores (build output, test results).  Uncommitted changes are not in it.
DIST = $(EXTENSION)-$(EXTVERSION)
DIST_ZIP ?= $(DIST).zip
.PHONY: dist
dist:
	@git diff --quiet HEAD -- 2>/dev/null || echo "warning: uncommitted changes are not in $(DIST_ZIP)"
	git archive --format=zip --prefix=$(DIST)/ -o $(DIST_ZIP) HEAD

include test/test.mk
