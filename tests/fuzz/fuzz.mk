# tests/fuzz/fuzz.mk — libFuzzer targets, included by the top-level Makefile.
#   make fuzz-build   builds every target into $(FUZZ_BUILD) with clang
#   make fuzz-short   regression inputs, then FUZZ_SHORT_SECONDS of fuzzing per target
#   make fuzz-long    the same with FUZZ_SECONDS (default 600) per target
#   make fuzz-seeds   rewrites the generated seeds of tests/fuzz/corpus/{codec,codec_ops,bucket}/
#   make fuzz-coverage line and branch coverage of the sources by the corpora so far
# Every variable is FUZZ_-prefixed so that none collides with the main Makefile;
# the sources are compiled again here with clang and the sanitizers (no gcc objects).
# See tests/fuzz/README.md.

FUZZ_CC            ?= clang
FUZZ_BUILD         ?= build-fuzz
FUZZ_TARGETS       ?= codec codec_ops bucket http rproto
FUZZ_SECONDS       ?= 600
FUZZ_SHORT_SECONDS ?= 25
FUZZ_TIMEOUT       ?= 10
FUZZ_RSS_MB        ?= 2048
FUZZ_PKGS          ?= libpq libevent jansson inih hiredis
# The source files of the codec (src/store/codec*.c), linked by fuzz_codec, fuzz_codec_ops
# and gen_seeds and measured by fuzz-coverage: a new codec file goes here.
FUZZ_CODEC_SRCS    ?= src/store/codec.c src/store/codec_portable.c src/store/codec_dense.c \
                      src/store/codec_patch.c src/store/codec_gaps.c
FUZZ_SAN           ?= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS        ?= -std=c11 -O1 -g -Wall -Wextra -Wno-unused-parameter
FUZZ_CPPFLAGS      ?= -Isrc -Itests/fuzz -I$(FUZZ_BUILD) -D_GNU_SOURCE \
                      $(shell pkg-config --cflags $(FUZZ_PKGS) 2>/dev/null)
FUZZ_LDLIBS        ?= $(shell pkg-config --libs $(FUZZ_PKGS) 2>/dev/null) -lroaring -lm

FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz-build fuzz-short fuzz-long fuzz-seeds fuzz-coverage

fuzz-build: $(FUZZ_BINS)

fuzz-short: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SHORT_SECONDS) $(FUZZ_TIMEOUT) $(FUZZ_RSS_MB) $(FUZZ_TARGETS)

fuzz-long: fuzz-build
	@bash tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TIMEOUT) $(FUZZ_RSS_MB) $(FUZZ_TARGETS)

fuzz-seeds: $(FUZZ_BUILD)/gen_seeds
	mkdir -p tests/fuzz/corpus
	$< tests/fuzz/corpus

$(FUZZ_BUILD)/gen_seeds: tests/fuzz/gen_seeds.c $(FUZZ_CODEC_SRCS) src/store/bucket.c src/store/codec_internal.h | $(FUZZ_BUILD)/src
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -o $@ $(filter %.c,$^) -lroaring

# The project sources each target needs, instrumented for coverage.
$(FUZZ_BUILD)/fuzz_codec: $(FUZZ_CODEC_SRCS:src/%.c=$(FUZZ_BUILD)/src/%.o)
$(FUZZ_BUILD)/fuzz_codec_ops: $(FUZZ_CODEC_SRCS:src/%.c=$(FUZZ_BUILD)/src/%.o)
$(FUZZ_BUILD)/fuzz_bucket: $(FUZZ_CODEC_SRCS:src/%.c=$(FUZZ_BUILD)/src/%.o) $(FUZZ_BUILD)/src/store/bucket.o
$(FUZZ_BUILD)/fuzz_rproto: $(FUZZ_BUILD)/src/redis/rproto.o
# fuzz_http.c includes src/http/http.c itself (to reach its static request entry) and is
# linked with every other module but main.c (http_reply.c and http_parse.c among
# them); ld --wrap replaces each route handler named in the route table with the
# fuzzer's, and the libevent calls that need a live connection (see fuzz_http.c).
FUZZ_HTTP_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/src/%.o,$(filter-out src/app/main.c src/http/http.c,$(shell find src -name '*.c')))
FUZZ_HTTP_WRAPPED := evhttp_send_reply evhttp_connection_set_closecb evhttp_connection_free \
                     evhttp_request_get_connection evhttp_connection_get_bufferevent
$(FUZZ_BUILD)/fuzz_http: $(FUZZ_HTTP_OBJS) $(FUZZ_BUILD)/fuzz_http_stubs.inc $(FUZZ_BUILD)/fuzz_http.wrap
FUZZ_LDFLAGS_http = -Wl,@$(FUZZ_BUILD)/fuzz_http.wrap

# The handler names of the route table in src/app/routes.c, one a line.
$(FUZZ_BUILD)/fuzz_http_handlers.txt: src/app/routes.c | $(FUZZ_BUILD)/src
	sed -n 's/^ *{"[A-Z]*", *"[^"]*", *\([A-Za-z_0-9]*\), *"[^"]*"}.*/\1/p' $< | sort -u > $@.tmp
	@test -s $@.tmp || { echo "no route handlers found in $<"; exit 1; }
	mv $@.tmp $@

$(FUZZ_BUILD)/fuzz_http_stubs.inc: $(FUZZ_BUILD)/fuzz_http_handlers.txt
	sed 's/.*/void __wrap_&(struct http_ctx *c);\nvoid __wrap_&(struct http_ctx *c) { fuzz_route_handler(c); }/' $< > $@

$(FUZZ_BUILD)/fuzz_http.wrap: $(FUZZ_BUILD)/fuzz_http_handlers.txt
	{ sed 's/^/--wrap=/' $<; for f in $(FUZZ_HTTP_WRAPPED); do echo "--wrap=$$f"; done; } > $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_check.h | $(FUZZ_BUILD)/src
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -MMD -MP -MF $@.d \
		-o $@ $< $(filter %.o,$^) $(FUZZ_LDFLAGS_$*) $(FUZZ_LDLIBS)

$(FUZZ_BUILD)/src/%.o: src/%.c | $(FUZZ_BUILD)/src
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP \
		-c -o $@ $<

$(FUZZ_BUILD)/src $(FUZZ_BUILD)/cov/src:
	mkdir -p $@

# Coverage: the targets again with clang's source-based coverage (no sanitizers),
# run once over build-fuzz/corpus/<target>, the regression inputs and the seeds.
FUZZ_COV       := $(FUZZ_BUILD)/cov
FUZZ_COVFLAGS  ?= -fprofile-instr-generate -fcoverage-mapping
FUZZ_COV_SRCS  ?= $(FUZZ_CODEC_SRCS) src/store/bucket.c src/redis/rproto.c src/http/router.c src/http/reqparse.c \
                  src/http/http.c src/http/http_parse.c src/http/http_reply.c
FUZZ_PROFDATA  ?= llvm-profdata-14
FUZZ_LLVM_COV  ?= llvm-cov-14
$(FUZZ_COV)/fuzz_codec: $(FUZZ_CODEC_SRCS:src/%.c=$(FUZZ_COV)/src/%.o)
$(FUZZ_COV)/fuzz_codec_ops: $(FUZZ_CODEC_SRCS:src/%.c=$(FUZZ_COV)/src/%.o)
$(FUZZ_COV)/fuzz_bucket: $(FUZZ_CODEC_SRCS:src/%.c=$(FUZZ_COV)/src/%.o) $(FUZZ_COV)/src/store/bucket.o
$(FUZZ_COV)/fuzz_rproto: $(FUZZ_COV)/src/redis/rproto.o
$(FUZZ_COV)/fuzz_http: $(FUZZ_HTTP_OBJS:$(FUZZ_BUILD)/src/%=$(FUZZ_COV)/src/%) \
                       $(FUZZ_BUILD)/fuzz_http_stubs.inc $(FUZZ_BUILD)/fuzz_http.wrap

$(FUZZ_COV)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_check.h | $(FUZZ_COV)/src
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_COVFLAGS) -fsanitize=fuzzer -MMD -MP -MF $@.d \
		-o $@ $< $(filter %.o,$^) $(FUZZ_LDFLAGS_$*) $(FUZZ_LDLIBS)

$(FUZZ_COV)/src/%.o: src/%.c | $(FUZZ_COV)/src
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_COVFLAGS) -MMD -MP -c -o $@ $<

fuzz-coverage: $(FUZZ_TARGETS:%=$(FUZZ_COV)/fuzz_%)
	@set -e; rm -f $(FUZZ_COV)/*.profraw; for t in $(FUZZ_TARGETS); do \
	  dirs=; for d in $(FUZZ_BUILD)/corpus/$$t tests/fuzz/regress/$$t tests/fuzz/corpus/$$t; do \
	    [ -d $$d ] && dirs="$$dirs $$d"; done; \
	  LLVM_PROFILE_FILE=$(FUZZ_COV)/$$t.profraw $(FUZZ_COV)/fuzz_$$t -runs=0 -max_len=20000 $$dirs \
	    > $(FUZZ_COV)/$$t.log 2>&1; done
	$(FUZZ_PROFDATA) merge -sparse -o $(FUZZ_COV)/all.profdata $(FUZZ_COV)/*.profraw
	$(FUZZ_LLVM_COV) report $(FUZZ_COV)/fuzz_$(firstword $(FUZZ_TARGETS)) \
		$(foreach t,$(wordlist 2,99,$(FUZZ_TARGETS)),-object $(FUZZ_COV)/fuzz_$(t)) \
		-instr-profile=$(FUZZ_COV)/all.profdata $(FUZZ_COV_SRCS)
	@echo "line by line: $(FUZZ_LLVM_COV) show $(FUZZ_COV)/fuzz_http -instr-profile=$(FUZZ_COV)/all.profdata src/http/http.c"

-include $(wildcard $(FUZZ_BUILD)/*.d $(FUZZ_BUILD)/src/*/*.d $(FUZZ_BUILD)/src/*/*/*.d $(FUZZ_BUILD)/cov/*.d $(FUZZ_BUILD)/cov/src/*/*.d $(FUZZ_BUILD)/cov/src/*/*/*.d)
