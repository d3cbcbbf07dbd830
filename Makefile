# Herd build. `make` builds build/bin; `make test` builds a sanitized tree
# (build/asan) and runs the unit and integration tests against it.
# `make install` and `make deb`: packaging/install.mk.

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE
LIBS_EV := -levent -ljansson -lmunge
LIBS_DB := -lsqlite3
# `make test` builds with every core: its sub-makes get -j of their own
NPROC   := $(shell nproc 2>/dev/null || echo 2)

ifeq ($(FUZZ),1)
# The fuzzing harnesses' build (tests/fuzz, `make fuzz`): clang, libFuzzer's
# coverage on every object, the sanitizers as in SAN=1.
B       := build/fuzz
CC      := clang
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
           -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=fuzzer,address,undefined
else ifeq ($(SAN),1)
B       := build/asan
CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
B       := build
endif

ALL_CFLAGS = $(WARN) $(CFLAGS) -Isrc -MMD -MP

COMMON_SRC := $(wildcard src/common/*.c)
SCHED_SRC  := $(wildcard src/sched/*.c)
CTLD_SRC   := $(wildcard src/ctld/*.c)
NODED_SRC  := $(wildcard src/noded/*.c)
# The client: the commands (each in src/cmd or a folder of its own there),
# what they share (src/client) and herd up/down (src/up).
CMD_SRC    := $(shell find src/cmd src/client src/up -name '*.c' | sort)
SIM_SRC    := $(wildcard src/sim/*.c)
UNIT_SRC   := $(wildcard tests/unit/*.c)

obj = $(patsubst src/%.c,$(B)/obj/%.o,$(1))

COMMON_LIB := $(B)/lib/libherdcommon.a
SCHED_LIB  := $(B)/lib/libherdsched.a
# The Slurm commands, links to herd: the names in src/cmd/commands.def.
CLIENT_LINKS := ${shell sed -n 's/^HERD_CMD(\([a-z]*\),.*/\1/p' src/cmd/commands.def}

BINS := $(B)/bin/herdctld $(B)/bin/herdd $(B)/bin/herd $(B)/bin/herd-sim
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))

.PHONY: all clean test unit integration demo deps bench bench-many-nodes links slurmdiff pam fuzz fuzz-build fuzz-regress chaos
all: $(BINS) links pam

links: $(B)/bin/herd
	@for l in $(CLIENT_LINKS); do ln -sf herd $(B)/bin/$$l; done

# rest_openapi.c builds the OpenAPI document in (.incbin, which -MMD does not see)
$(B)/obj/ctld/rest_openapi.o: docs/openapi-v0.0.40.json

$(B)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(COMMON_LIB): $(call obj,$(COMMON_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(SCHED_LIB): $(call obj,$(SCHED_SRC))
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

# The dashboard's files (ui/), built into herdctld as a generated C table.
UI_FILES := $(sort $(wildcard ui/*.html ui/*.js ui/*.css))
UI_OBJ   := $(B)/obj/gen/ui_files.o
$(B)/gen/ui_files.c: $(UI_FILES) scripts/embed-ui.sh
	@mkdir -p $(dir $@)
	scripts/embed-ui.sh $@ $(UI_FILES)
$(UI_OBJ): $(B)/gen/ui_files.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/bin/herdctld: $(call obj,$(CTLD_SRC)) $(UI_OBJ) $(SCHED_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS_EV) $(LIBS_DB) -ljwt -lpthread -lm

# herdd re-executes itself as each job's supervisor: with its libraries
# linked in, that start skips the dynamic loader's work for them (6 % of a
# node's CPU in a run of 1,000 short jobs).
$(B)/bin/herdd: $(call obj,$(NODED_SRC)) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -Wl,-Bstatic -levent -ljansson -lmunge -lresolv -Wl,-Bdynamic -ldl -lm

# The client: sbatch, squeue, ... are links to it; it links no SQLite and no
# scheduler. Its libraries are linked statically where Debian ships archives:
# every command starts faster without the dynamic loader's work for them.
# (libevent: srun streams its tasks' output over HTTP.) It needs no libm, and
# glibc is its one shared library: each one more cost page faults at every
# start. glibc stays shared for the name service modules (LDAP, sssd) that
# user names are looked up through, and the binary position-independent, as
# Debian hardens it (bench/RESULTS.md: what either would save).
CLIENT_LIBS := -Wl,-Bstatic -levent -ljansson -lmunge -lz -lresolv -Wl,-Bdynamic
$(B)/bin/herd: $(call obj,$(CMD_SRC)) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CLIENT_LIBS)

# `herd sim` runs this program, found beside herd: the simulator needs the
# scheduling core, which the commands do not link.
# zlib (gzipped traces) is linked dynamically: a copy inside it is one a
# zlib security update would miss (lintian: embedded-library).
$(B)/bin/herd-sim: $(call obj,$(SIM_SRC)) $(SCHED_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -Wl,-Bstatic -levent -ljansson -lmunge -Wl,-Bdynamic -lz -lm

# pam_herd_adopt.so, loaded by sshd (or pamtester), which are not built
# with the sanitizers: always the release flags, position-independent, in
# build/ even under SAN=1. Only pam_sm_* are exported (the common code it
# links, conf.c and what that needs, stays hidden from the host program).
PAM_MODULE := build/lib/security/pam_herd_adopt.so
PAM_SRC    := $(wildcard src/pam/*.c)
PAM_COMMON := conf conf_gpu conf_preempt hostlist log timefmt xmalloc
PAM_OBJS   := $(patsubst src/%.c,build/pic/%.o,$(PAM_SRC) $(PAM_COMMON:%=src/common/%.c))
PAM_CFLAGS := $(WARN) -O2 -g -fPIC -fvisibility=hidden -Isrc -MMD -MP
pam: $(PAM_MODULE)

build/pic/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PAM_CFLAGS) -c -o $@ $<

$(PAM_MODULE): $(PAM_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--no-undefined -Wl,-z,relro,-z,now -o $@ $^ -lpam -ljansson

# Each unit test is one program; it may use any module but the programs'
# main files, through archives so that only what it calls is linked.
CMD_LIB  := $(B)/lib/libherdcmd.a
CTLD_LIB := $(B)/lib/libherdctld.a
NODED_LIB := $(B)/lib/libherdnoded.a
$(CMD_LIB): $(filter-out $(B)/obj/cmd/herd.o $(B)/obj/sim/main.o,$(call obj,$(CMD_SRC) $(SIM_SRC)))
$(CTLD_LIB): $(filter-out $(B)/obj/ctld/main.o,$(call obj,$(CTLD_SRC))) $(UI_OBJ)
$(NODED_LIB): $(filter-out $(B)/obj/noded/main.o,$(call obj,$(NODED_SRC)))
$(CMD_LIB) $(CTLD_LIB) $(NODED_LIB):
	@mkdir -p $(dir $@)
	rm -f $@; ar rcs $@ $^

$(B)/tests/%: tests/unit/%.c $(CMD_LIB) $(CTLD_LIB) $(NODED_LIB) $(SCHED_LIB) $(COMMON_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(CMD_LIB) $(CTLD_LIB) $(NODED_LIB) $(SCHED_LIB) $(COMMON_LIB) \
	  -lcmocka $(LIBS_EV) $(LIBS_DB) -ljwt -lresolv -ldl -lz -lm

unit-build: $(UNIT_BINS)

# Fuzzing (docs/testing.md): one libFuzzer harness per tests/fuzz/NAME.c, its
# seed corpus in tests/fuzz/NAME/, a dictionary (if any) in NAME.dict.
# `make fuzz FUZZ_TIME=S` runs each S seconds (new inputs go to
# build/fuzz/corpus/NAME, findings to build/fuzz/crashes/); `make
# fuzz-regress` runs each over its seed corpus.
FUZZ_SRC  := $(wildcard tests/fuzz/*.c)
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRC))
FUZZ_BINS := $(FUZZ_NAMES:%=build/fuzz/%)
FUZZ_TIME ?= 60
FUZZ_LIBS := $(CMD_LIB) $(CTLD_LIB) $(NODED_LIB) $(SCHED_LIB) $(COMMON_LIB)

$(filter $(B)/%,$(FUZZ_BINS)): $(B)/%: tests/fuzz/%.c $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(FUZZ_LIBS) \
	  $(LIBS_EV) $(LIBS_DB) -ljwt -lresolv -ldl -lz -lm

fuzz-build:
	$(MAKE) FUZZ=1 $(FUZZ_BINS)

fuzz: fuzz-build
	@mkdir -p build/fuzz/crashes
	@for f in $(FUZZ_NAMES); do \
	  mkdir -p build/fuzz/corpus/$$f; echo "fuzz: $$f ($(FUZZ_TIME) s)"; \
	  dict=; [ ! -f tests/fuzz/$$f.dict ] || dict=-dict=tests/fuzz/$$f.dict; \
	  build/fuzz/$$f -max_total_time=$(FUZZ_TIME) -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
	    $$dict -artifact_prefix=build/fuzz/crashes/$$f- build/fuzz/corpus/$$f tests/fuzz/$$f \
	    2>build/fuzz/$$f.log || { tail -40 build/fuzz/$$f.log; echo "fuzz: $$f FAILED"; exit 1; }; \
	  grep -E '^#[0-9]+[[:space:]]+DONE' build/fuzz/$$f.log; \
	done

fuzz-regress: fuzz-build
	@for f in $(FUZZ_NAMES); do \
	  build/fuzz/$$f tests/fuzz/$$f/* >build/fuzz/$$f-regress.log 2>&1 \
	    || { tail -40 build/fuzz/$$f-regress.log; echo "fuzz-regress: $$f FAILED"; exit 1; }; \
	done; echo "fuzz-regress: $(words $(FUZZ_NAMES)) harnesses, every corpus input passed"

deps:
	@scripts/install-deps.sh

test: deps
	$(MAKE) -j$(NPROC) SAN=1 all unit-build
	@scripts/run-unit.sh build/asan/tests
	$(MAKE) -j$(NPROC) fuzz-regress
	scripts/run-integration.sh $(CURDIR)/build/asan/bin

unit: deps
	$(MAKE) SAN=1 all unit-build
	@scripts/run-unit.sh build/asan/tests

integration: deps
	$(MAKE) -j$(NPROC) SAN=1 all
	scripts/run-integration.sh $(CURDIR)/build/asan/bin

demo: deps
	$(MAKE) all
	@scripts/demo.sh

# BENCH_MANY_NODES=1 adds bench/many_nodes (1,000 and 5,000 emulated nodes,
# docs/emulator.md; BENCH_MANY_NODES_ARGS passes options, e.g. --jobs 10000).
bench: deps
	$(MAKE) all
	@bench/run
	@if [ -n "$(BENCH_MANY_NODES)" ]; then bench/many_nodes $(BENCH_MANY_NODES_ARGS); fi

bench-many-nodes: deps
	$(MAKE) all
	@bench/many_nodes $(BENCH_MANY_NODES_ARGS)

# The long chaos run (tests/chaos, docs/testing.md): CHAOS_TIME seconds of
# faults over a mixed workload, then the invariants. Not part of `make test`
# (tests/integration/test_chaos_short.py is). Nodes in namespaces (link
# faults too) when run as root; CHAOS_ARGS adds options (--seed N to replay).
CHAOS_TIME ?= 600
chaos: deps
	$(MAKE) all
	/usr/bin/python3 tests/chaos/chaos.py --time $(CHAOS_TIME) --bin $(CURDIR)/build/bin \
	  $(if $(filter 0,$(shell id -u)),--netns) $(CHAOS_ARGS)

# Herd against real Slurm (slurm-ref), case by case: see docs/slurmdiff.md.
# Not part of `make test`: it needs slurm-ref on this machine and says so.
slurmdiff:
	@if ! timeout 15 /usr/bin/sinfo -h -o %P >/dev/null 2>&1; then \
	  echo "make slurmdiff: slurm-ref (real Slurm, /usr/bin/sinfo) does not answer here;" \
	       "start it with /work/shared/slurm-ref/up.sh. Nothing compared." >&2; exit 2; fi
	$(MAKE) SAN=1 all
	/usr/bin/python3 tools/slurmdiff/slurmdiff.py --herd-bin build/asan/bin \
	  --record bench/results/slurmdiff-last.txt $(SLURMDIFF_ARGS)

clean:
	rm -rf build

include packaging/install.mk

# -type f: an install tree under build (make deb) has directories named *.d
-include $(shell find build -name '*.d' -type f 2>/dev/null)
