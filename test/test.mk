# test/test.mk - kid's test, demo and benchmark targets (included at the end
# of the Makefile, after PGXS; pg_regress itself is PGXS's installcheck).
#
#   make test       install everything needed and run every test on PostgreSQL 15,
#                   and what depends on the server on 17 and 18 (test/run-majors.sh:
#                   test/run-all.sh on each)
#   make demo       install what the demo needs, build, install, and run a demo
#   make bench      the benchmark (on PG_CONFIG's PostgreSQL, 15 by default)
#   make bench18    the benchmark on PostgreSQL 18 (KID_PG18_CONFIG, or the
#                   one test/tools/pg18.sh builds and caches), with uuidv7() and
#                   uuid_extract_timestamp() beside kid's functions
#   make unit       C++ unit tests of src/core
#   make fuzz       libFuzzer on every decoder of src/core, FUZZ_SECONDS (15) each
#   make unit-valgrind   the unit tests under valgrind's memcheck
#   make unit-sanitize   the unit tests built with ASan and UBSan (clang)
#   make sanitize-check  pg_regress against kid built with ASan and UBSan
#   make format-check    the C++ sources are formatted as .clang-format says
#   make format          format them so

EXTRA_CLEAN += test/unit/kid_unit_tests test/unit/kid_unit_tests_san \
	test/fuzz/*_fuzz test/fuzz/seeds test/fuzz/obj test/fuzz/seeds-out test/fuzz/logs

# ---------------------------------------------------------------- unit tests
UNIT_TESTS = $(wildcard test/unit/*_test.cpp)
# What both unit-test binaries (plain and sanitized) are built from.
UNIT_DEPS = $(CORE_SRCS) $(UNIT_TESTS) $(wildcard src/core/*.h) Makefile test/test.mk
UNIT_CXXFLAGS ?= -O1 -g
test/unit/kid_unit_tests: $(UNIT_DEPS)
	$(CXX) -std=c++17 -Wall -Wextra -Werror $(UNIT_CXXFLAGS) -Isrc \
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
	$(SAN_CXX) -std=c++17 -Wall -Wextra -Werror -O1 -g $(SAN_FLAGS) -Isrc \
		$(CORE_SRCS) $(UNIT_TESTS) -lgtest -lgtest_main -pthread -o $@
unit-sanitize: test/unit/kid_unit_tests_san
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 test/unit/kid_unit_tests_san --gtest_brief=1

# ---------------------------------------------------------------- fuzzing
# One libFuzzer target per decoder family (test/fuzz/*_fuzz.cpp), with
# src/core compiled once with the same instrumentation.
FUZZ_CXX ?= $(SAN_CXX)
FUZZ_SECONDS ?= 15
FUZZ_FLAGS = -std=c++17 -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -Isrc -Itest/fuzz
FUZZ_TARGETS = $(patsubst %.cpp,%,$(wildcard test/fuzz/*_fuzz.cpp))
FUZZ_CORE_OBJS = $(patsubst src/core/%.cpp,test/fuzz/obj/%.o,$(CORE_SRCS))

test/fuzz/obj/%.o: src/core/%.cpp $(wildcard src/core/*.h) Makefile test/test.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@
test/fuzz/%_fuzz: test/fuzz/%_fuzz.cpp test/fuzz/fuzz.h $(FUZZ_CORE_OBJS)
	$(FUZZ_CXX) $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_CORE_OBJS) -o $@
# The seed generator: plain C++ on the uninstrumented core.
test/fuzz/seeds: test/fuzz/seeds.cpp $(CORE_SRCS) $(wildcard src/core/*.h)
	$(CXX) -std=c++17 -Wall -Wextra -Werror -O1 -Isrc $< $(CORE_SRCS) -o $@

fuzz-build: $(FUZZ_TARGETS) test/fuzz/seeds
fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) test/fuzz/run.sh

sanitize-check:
	test/sanitize.sh

# ---------------------------------------------------------------- formatting
# clang-format 14 (Debian 12's); other versions format some constructs differently.
CLANG_FORMAT ?= $(shell command -v clang-format-14 || echo clang-format)
FORMAT_FILES = $(sort $(wildcard src/*/*.cpp src/*/*.h test/unit/*.cpp test/unit/*.h test/fuzz/*.cpp test/fuzz/*.h))
format-check:
	$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_FILES)
format:
	$(CLANG_FORMAT) -i $(FORMAT_FILES)

# ---------------------------------------------------------------- everything
.PHONY: unit unit-valgrind unit-sanitize fuzz fuzz-build sanitize-check format-check format test demo bench bench18 deps deps-demo
deps:
	test/tools/install-deps.sh
# make demo installs only what building kid and the demo need.
deps-demo:
	test/tools/install-deps.sh --demo

test: deps
	test/run-majors.sh

demo: deps-demo
	test/tools/demo.sh

bench: deps
	test/tools/bench.sh

bench18: deps
	config="$${KID_PG18_CONFIG:-$$(test/tools/pg18.sh)}" && [ -x "$$config" ] && PG_CONFIG="$$config" test/tools/bench.sh
