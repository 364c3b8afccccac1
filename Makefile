# bitmapd — build, run, test, bench. `make help` lists the targets.

CC       ?= cc
BUILD    ?= build
SANITIZE ?=
PKGS      = libpq libevent jansson inih hiredis
CFLAGS   ?= -O2 -g
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS += -Isrc -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lroaring -lm
# kept apart from CFLAGS so that `make CFLAGS=… SANITIZE=…` keeps the sanitizers
ifneq ($(SANITIZE),)
  SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# The allocator: jemalloc, as Redis uses (glibc's malloc was a third of bitmapd's CPU per
# pipelined SETBIT, docs/design.md "Allocator"), except under the sanitizers and
# valgrind, which bring their own. MALLOC=libc builds with glibc's.
MALLOC ?= jemalloc
ifeq ($(SANITIZE)$(MALLOC),jemalloc)
  CPPFLAGS += -DBITMAPD_JEMALLOC
  LDLIBS   += -ljemalloc
endif
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(SANFLAGS) -MMD -MP

# src/ is in layers, one folder each (src/README.md); an #include names the layer:
# #include "store/codec.h". scripts/check_layers.sh keeps the arrows pointing down.
SRCS  := $(sort $(shell find src -name '*.c'))
OBJS  := $(SRCS:src/%.c=$(BUILD)/obj/%.o)
LIB_OBJS := $(filter-out $(BUILD)/obj/app/main.o,$(OBJS))
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
# hiredis clients used by the integration tests (not unit tests)
TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))

.PHONY: all deps run test check-layers unit integration test-sanitize integration-sanitize integration-wlog integration-own-rows valgrind psql bench format clean help

all: $(BUILD)/bitmapd $(TOOLS)

help:
	@echo "make run       install missing packages, build, start the embedded PostgreSQL, migrate, serve"
	@echo "make test      install, build, unit tests (plain and ASan/UBSan), integration tests"
	@echo "               (plain and against an ASan/UBSan bitmapd), the valgrind leak run, and"
	@echo "               about 25 s of libFuzzer per target (make fuzz-short; fuzz-long: FUZZ_SECONDS)"
	@echo "make check-layers  only the check that every #include of src/ points down a layer"
	@echo "make integration-sanitize   only the integration suite against an ASan/UBSan bitmapd"
	@echo "make integration-wlog       part of it again, with the write-behind log on ([wlog] enabled)"
	@echo "make integration-own-rows   part of it again, with check-in and receipt keys in rows of their own"
	@echo "make valgrind  only the valgrind leak run (scripts/valgrind.sh)"
	@echo "make psql      psql on the service's database; ARGS='-c \"...\"' passes through"
	@echo "make bench     load test against a throwaway service; figures to docs/benchmarks.md"

deps:
	@bash scripts/deps.sh

$(BUILD)/bitmapd: $(OBJS)
	$(CC) $(LDFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIB_OBJS) | $(BUILD)/tests
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) -lcmocka

$(BUILD)/tools/%: tests/tools/%.c | $(BUILD)/tools
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -lhiredis

$(BUILD)/obj $(BUILD)/tests $(BUILD)/tools:
	mkdir -p $@

unit: $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; $$t; done

test-sanitize:
	$(MAKE) BUILD=build-asan SANITIZE=address,undefined unit

integration: all
	@bash scripts/test_integration.sh

# The whole integration suite against a bitmapd built with ASan + UBSan, in
# build-asan-it. Built with clang: its one runtime writes ASan, LSan and UBSan
# reports to log_path, while gcc's separate libubsan ignores log_path and prints
# to stderr, where a test may throw it away. Every sanitized process writes its
# reports to $(SAN_LOGS)/<test name>.<pid> (tests/integration/lib.sh names them,
# and checks each instance stop_service stops); any report, even one from an
# instance a test killed or from bitmapd --migrate, fails the run below. Leaks are
# checked at exit, so an instance that leaks after SIGTERM exits 86 with a report.
# The test clients stay the plain ones in $(BUILD)/tools. IT_TESTS=REGEX runs
# only the matching test files (TESTS of scripts/test_integration.sh).
IT_TESTS  ?=
BITMAPD_TEST_ARGS ?=
BITMAPD_TEST_BUCKETS ?=
SAN_CC    ?= clang
SAN_BUILD  = build-asan-it
SAN_LOGS   = $(CURDIR)/$(SAN_BUILD)/reports
SAN_COMMON = halt_on_error=1:exitcode=86:log_path=$(SAN_LOGS)/runner
SAN_ASAN   = detect_leaks=1:abort_on_error=0:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1:handle_abort=1:$(SAN_COMMON)
SAN_UBSAN  = print_stacktrace=1:$(SAN_COMMON)

integration-sanitize: all
	$(MAKE) BUILD=$(SAN_BUILD) CC=$(SAN_CC) SANITIZE=address,undefined $(SAN_BUILD)/bitmapd
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@rc=0; start=$$(date +%s); \
	ASAN_OPTIONS='$(SAN_ASAN)' UBSAN_OPTIONS='$(SAN_UBSAN)' LSAN_OPTIONS= \
	  BITMAPD_SANITIZER_LOGS='$(SAN_LOGS)' BITMAPD_BIN='$(CURDIR)/$(SAN_BUILD)/bitmapd' \
	  BITMAPD_TOOLS='$(CURDIR)/$(BUILD)/tools' TESTS='$(IT_TESTS)' BITMAPD_TEST_ARGS='$(BITMAPD_TEST_ARGS)' \
	  BITMAPD_TEST_BUCKETS='$(BITMAPD_TEST_BUCKETS)' \
	  bash scripts/test_integration.sh || rc=$$?; \
	reports=$$(find '$(SAN_LOGS)' -type f | sort); \
	for f in $$reports; do echo "== sanitizer report $$(basename $$f) (test name.pid)"; head -n 80 "$$f"; done; \
	if [ -n "$$reports" ]; then rc=1; fi; \
	echo "integration-sanitize: $$(echo $$reports | wc -w) sanitizer report(s), suite exit $$rc, $$(( $$(date +%s) - start ))s"; \
	exit $$rc

# The tests whose clients only talk to the service (Redis replies, the seeds, the
# caches of two instances, the fault suite) once more against the ASan/UBSan bitmapd
# with the write-behind log on in every instance ([wlog] enabled; test_wlog.sh, in
# both passes above, covers what is particular to it), and the check-in and receipt
# keys in rows of their own, so that their writes go through the log too (in bucket
# rows, the layout of the passes above, they never do).
# (inbox_http's 100,000-user fan-out met statement timeouts here until the service's
# sessions stopped planning key probes as sequential scans: docs/design.md, "Plans made
# on an empty table")
WLOG_TESTS ?= bucket_move|bucket_spill|resp_equiv|resp_commands|resp_scan|resp_seeds|resp_import|resp_expiry|expiry_store|cache|faults|inbox_http

integration-wlog: all
	$(MAKE) integration-sanitize IT_TESTS='$(WLOG_TESTS)' BITMAPD_TEST_ARGS='--set wlog.enabled=1' BITMAPD_TEST_BUCKETS=0

# The suites that read and write keys of the two families (check-ins, receipts) and
# those of Redis replies, caches and faults, once more against the ASan/UBSan bitmapd
# with every family's keys in rows of their own (bitmapd --buckets out after the
# migrations): the layout of a database whose families were never moved, or were moved
# out. The passes above run with them in bucket rows, where a new database keeps them
# (migrations/0015; src/store/store_buckets.c; docs/design.md, "Bucket rows by
# default"). The whole suite passes that way too:
# BITMAPD_TEST_BUCKETS=0 bash scripts/test_integration.sh.
OWNROW_TESTS ?= checkin_http|receipts_http|sql_buckets|sql_members|resp_equiv|resp_commands|resp_import|cache|faults

integration-own-rows: all
	$(MAKE) integration-sanitize IT_TESTS='$(OWNROW_TESTS)' BITMAPD_TEST_BUCKETS=0

# A short run of the service under valgrind (memcheck), in build-vg: -O1 -g, no
# sanitizers. Fails on any definite or indirect leak and any invalid access.
VG_BUILD = build-vg

valgrind:
	$(MAKE) BUILD=$(VG_BUILD) CFLAGS='-O1 -g' SANITIZE= MALLOC=libc $(VG_BUILD)/bitmapd
	@BITMAPD_BIN='$(CURDIR)/$(VG_BUILD)/bitmapd' bash scripts/valgrind.sh

# the #include arrows of src/ point down (src/README.md)
check-layers:
	@bash scripts/check_layers.sh

test: deps
	$(MAKE) check-layers
	$(MAKE) all unit
	$(MAKE) test-sanitize
	$(MAKE) integration
	$(MAKE) integration-sanitize
	$(MAKE) integration-wlog
	$(MAKE) integration-own-rows
	$(MAKE) valgrind
	$(MAKE) fuzz-short

run: deps all
	@bash scripts/run.sh

psql: deps
	@bash scripts/psql.sh $(ARGS)

bench: deps all $(BUILD)/bench/naive $(BUILD)/bench/hotkey
	@bash scripts/deps.sh bench
	@BENCH_BIN=$${BENCH_BIN:-$(BUILD)/bitmapd} BENCH_NAIVE=$${BENCH_NAIVE:-$(BUILD)/bench/naive} \
	  BENCH_HOTKEY=$${BENCH_HOTKEY:-$(BUILD)/bench/hotkey} bash bench/run.sh

# many clients writing one key (bench/hotkey.sh), the same stream to bitmapd and redis
$(BUILD)/bench/hotkey: bench/hotkey.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -pthread -o $@ $< -lhiredis -lpthread

# the seed-000 design (blocking SELECT + UPDATE per SETBIT) as a load generator
$(BUILD)/bench/naive: bench/naive.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -pthread -o $@ $< $(shell pkg-config --libs libpq 2>/dev/null) -lroaring -lpthread

format:
	@test -f .clang-format || { echo 'make format: the tree has no .clang-format; clang-format'"'"'s default style would rewrite every file' >&2; exit 1; }
	clang-format -i $(SRCS) $(shell find src -name '*.h') tests/*.c

clean:
	rm -rf build build-asan build-asan-it build-vg

-include $(OBJS:.o=.d) $(TESTS:=.d) $(TOOLS:=.d)

# fuzzing (libFuzzer, clang): fuzz-build, fuzz-short, fuzz-long; see tests/fuzz/README.md
-include tests/fuzz/fuzz.mk
