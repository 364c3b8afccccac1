# bitmapd — build, run, test, bench. `make help` lists the targets.

CC       ?= cc
BUILD    ?= build
SANITIZE ?=
PKGS      = libpq libevent jansson inih hiredis
CFLAGS   ?= -O2 -g
WARN      = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS += -Iinclude -D_GNU_SOURCE $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lroaring -lm
# kept apart from CFLAGS so that `make CFLAGS=… SANITIZE=…` keeps the sanitizers
ifneq ($(SANITIZE),)
  SANFLAGS = -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(SANFLAGS) -MMD -MP

SRCS  := $(wildcard src/*.c)
OBJS  := $(SRCS:src/%.c=$(BUILD)/obj/%.o)
LIB_OBJS := $(filter-out $(BUILD)/obj/main.o,$(OBJS))
TESTS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/test_*.c))
# hiredis clients used by the integration tests (not unit tests)
TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(wildcard tests/tools/*.c))

.PHONY: all deps run test unit integration test-sanitize psql bench format clean help

all: $(BUILD)/bitmapd $(TOOLS)

help:
	@echo "make run       install missing packages, build, start the embedded PostgreSQL, migrate, serve"
	@echo "make test      install, build, unit tests (plain and ASan/UBSan), integration tests"
	@echo "make psql      psql on the service's database; ARGS='-c \"...\"' passes through"
	@echo "make bench     load test against a throwaway service; figures to docs/benchmarks.md"

deps:
	@bash scripts/deps.sh

$(BUILD)/bitmapd: $(OBJS)
	$(CC) $(LDFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: src/%.c | $(BUILD)/obj
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

test: deps
	$(MAKE) all unit
	$(MAKE) test-sanitize
	$(MAKE) integration

run: deps all
	@bash scripts/run.sh

psql: deps
	@bash scripts/psql.sh $(ARGS)

bench: deps all $(BUILD)/bench/naive
	@bash scripts/deps.sh bench
	@BENCH_BIN=$${BENCH_BIN:-$(BUILD)/bitmapd} BENCH_NAIVE=$${BENCH_NAIVE:-$(BUILD)/bench/naive} bash bench/run.sh

# the seed-000 design (blocking SELECT + UPDATE per SETBIT) as a load generator
$(BUILD)/bench/naive: bench/naive.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -pthread -o $@ $< $(shell pkg-config --libs libpq 2>/dev/null) -lroaring -lpthread

format:
	clang-format -i src/*.c include/*.h tests/*.c

clean:
	rm -rf build build-asan

-include $(OBJS:.o=.d) $(TESTS:=.d) $(TOOLS:=.d)

# fuzzing (libFuzzer, clang): fuzz-build, fuzz-short, fuzz-long; see tests/fuzz/README.md
-include tests/fuzz/fuzz.mk
