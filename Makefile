# kid - k-ordered unique id types for PostgreSQL.  Built with PGXS.
#
#   make            build the extension            make install    install it
#   make demo       install everything needed, build, install, and run a demo
#                   on a throwaway cluster         (README: set-up command 1)
#   make test       install everything needed and run every test
#                   (README: set-up command 2; .ci/run calls exactly this)
#   make unit       C++ unit tests of src/core     make bench      the benchmark
#   make fuzz       libFuzzer on every decoder of src/core, FUZZ_SECONDS (15) each
#   make unit-valgrind   the unit tests under valgrind's memcheck
#   make unit-sanitize   the unit tests built with ASan and UBSan (clang)
#   make sanitize-check  pg_regress against kid built with ASan and UBSan

EXTENSION  = kid
EXTVERSION = $(shell grep default_version $(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")

# src/core: plain C++17, no PostgreSQL header, unit-tested on its own.
CORE_SRCS = $(sort $(wildcard src/core/*.cpp))
# src/pg: the thin PostgreSQL boundary, one file per scheme.
PG_SRCS   = $(sort $(wildcard src/pg/*.cpp))

MODULE_big = kid
OBJS = $(CORE_SRCS:.cpp=.o) $(PG_SRCS:.cpp=.o)

# sql/ holds only the installed scripts, committed: the install script is
# generated from src/sql/ by src/sql/build-install-script.pl (CONTRIBUTING.md,
# "How the install script is built"); upgrade scripts are written by hand.
KID_SQL = sql/$(EXTENSION)--$(EXTVERSION).sql
DATA = $(sort $(KID_SQL) $(wildcard sql/$(EXTENSION)--*--*.sql))

# Regression tests live in test/sql; their expected output in expected/.
REGRESS = $(sort $(basename $(notdir $(wildcard test/sql/*.sql))))
REGRESS_OPTS = --inputdir=test --load-extension=$(EXTENSION)

PG_CONFIG ?= pg_config
PG_CPPFLAGS = -Isrc/core -Isrc/pg
PG_CXXFLAGS = -std=c++17 -Wno-register -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers
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

EXTRA_CLEAN = test/unit/kid_unit_tests test/unit/kid_unit_tests_san test/results test/regression.* \
	test/stress/kid_stress test/fuzz/*_fuzz test/fuzz/seeds test/fuzz/obj test/fuzz/seeds-out test/fuzz/logs

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies; every object depends on every header.
$(OBJS): $(wildcard src/core/*.h src/pg/*.h)

# A changed source flows into the committed script.  After a clone the sources
# may look newer: regenerating then changes nothing (make test checks that);
# without perl the committed script is installed as it is.
all: $(KID_SQL)
$(KID_SQL): $(wildcard src/sql/*)
	@if command -v perl >/dev/null; then \
		perl src/sql/build-install-script.pl > $@.tmp && { cmp -s $@.tmp $@ || echo "regenerated $@"; } && mv $@.tmp $@; \
	else echo "perl not found: $@ not regenerated"; touch $@; fi
# Fails when the committed install script is not what src/sql/ generates.
.PHONY: check-install-script
check-install-script:
	@perl src/sql/build-install-script.pl | diff -u $(KID_SQL) - || \
		{ echo "$(KID_SQL) is out of date: run make and commit it"; exit 1; }

# ---------------------------------------------------------------- tests
UNIT_TESTS = $(wildcard test/unit/*_test.cpp)
# What both unit-test binaries (plain and sanitized) are built from.
UNIT_DEPS = $(CORE_SRCS) $(UNIT_TESTS) $(wildcard src/core/*.h) Makefile
UNIT_CXXFLAGS ?= -O1 -g
test/unit/kid_unit_tests: $(UNIT_DEPS)
	$(CXX) -std=c++17 -Wall -Wextra -Werror $(UNIT_CXXFLAGS) -Isrc/core \
		$(CORE_SRCS) $(UNIT_TESTS) -lgtest -lgtest_main -pthread -o $@

unit: test/unit/kid_unit_tests
	test/unit/kid_unit_tests

# valgrind's memcheck: any invalid access, uninitialised read or leak fails.
VALGRIND = valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
	--errors-for-leak-kinds=definite,indirect
unit-valgrind: test/unit/kid_unit_tests
	$(VALGRIND) test/unit/kid_unit_tests --gtest_brief=1

# clang, not gcc: gcc's UBSan misses some signed overflows (the one
# test/unit/codokey_test.cpp TimesAtTheEndsOfInt64 guards against).
SAN_CXX ?= $(shell command -v clang++-14 || echo clang++)
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
test/unit/kid_unit_tests_san: $(UNIT_DEPS)
	$(SAN_CXX) -std=c++17 -Wall -Wextra -Werror -O1 -g $(SAN_FLAGS) -Isrc/core \
		$(CORE_SRCS) $(UNIT_TESTS) -lgtest -lgtest_main -pthread -o $@
unit-sanitize: test/unit/kid_unit_tests_san
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 test/unit/kid_unit_tests_san --gtest_brief=1

# ---------------------------------------------------------------- fuzzing
# One libFuzzer target per decoder family (test/fuzz/*_fuzz.cpp), with
# src/core compiled once with the same instrumentation.
FUZZ_CXX ?= $(SAN_CXX)
FUZZ_SECONDS ?= 15
FUZZ_FLAGS = -std=c++17 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -Isrc/core -Itest/fuzz
FUZZ_TARGETS = $(patsubst %.cpp,%,$(wildcard test/fuzz/*_fuzz.cpp))
FUZZ_CORE_OBJS = $(patsubst src/core/%.cpp,test/fuzz/obj/%.o,$(CORE_SRCS))

test/fuzz/obj/%.o: src/core/%.cpp $(wildcard src/core/*.h) Makefile
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
test/fuzz/%_fuzz: test/fuzz/%_fuzz.cpp test/fuzz/fuzz.h $(FUZZ_CORE_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_CORE_OBJS) -o $@
# The seed generator: plain C++ on the uninstrumented core.
test/fuzz/seeds: test/fuzz/seeds.cpp $(CORE_SRCS) $(wildcard src/core/*.h)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -O1 -Isrc/core $< $(CORE_SRCS) -o $@

fuzz-build: $(FUZZ_TARGETS) test/fuzz/seeds
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run.sh

sanitize-check:
	test/sanitize.sh

.PHONY: unit unit-valgrind unit-sanitize fuzz fuzz-build sanitize-check test demo bench deps
deps:
	test/install-deps.sh

test: deps
	test/run-all.sh

demo: deps
	test/demo.sh

bench: deps
	test/bench.sh
