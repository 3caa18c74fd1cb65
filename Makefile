# SPDX-License-Identifier: GPL-2.0
#
# isolbench: builds standalone (make; make run_tests) or from a kernel
# tree's tools/testing/selftests/isolbench through the kselftest lib.mk.

PROGS := getpid_bench timer_softirq ipistorm cid_scan
# The tests are run.sh's table, in its order; a test that runs a program
# with arguments (ipistorm_watch: ipistorm --mode watch) is a script made
# from the table, so that the kselftest runner reaches every one.
TEST_GEN_PROGS := $(shell ./scripts/test_wrapper.sh --tests)
ifeq ($(TEST_GEN_PROGS),)
$(error scripts/test_wrapper.sh found no test in run.sh's table)
endif
VARIANTS := $(filter-out $(PROGS),$(TEST_GEN_PROGS))
# Built and installed with the tests, not run as one: compare is a tool.
TOOLS := compare

TEST_PROGS_EXTENDED := run.sh
TEST_FILES := settings config

# Cross-built as kselftest is: make CROSS_COMPILE=aarch64-linux-gnu-
# (the libraries below then come from that target's pkg-config, or are
# left out).
ifneq ($(CROSS_COMPILE),)
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
endif
PKG_CONFIG ?= $(CROSS_COMPILE)pkg-config

# hwloc and libnuma where pkg-config finds them (a libnuma-dev without
# numa.pc: where <numa.h> compiles and links); without one, or with
# HWLOC=0 or NUMA=0, its facts come from sysfs (lib/base/topo.h).
ifndef HWLOC
HWLOC := $(shell $(PKG_CONFIG) --exists hwloc 2>/dev/null && echo 1 || echo 0)
endif
ifndef NUMA
NUMA := $(shell $(PKG_CONFIG) --exists numa 2>/dev/null && echo 1 || \
	  { printf '\043include <numa.h>\nint main(void) { return numa_available(); }\n' | \
	    $(CC) -x c - -lnuma -o /dev/null 2>/dev/null && echo 1 || echo 0; })
endif
# libtraceevent and libtracefs (what rtla and trace-cmd are built on)
# where pkg-config finds both: trace events read raw, laid out by their
# format files (lib/kernel/trace_event_raw.c); without them, or with
# TRACEEVENT=0, read as trace_pipe text (trace_event_raw_none.c).
ifndef TRACEEVENT
TRACEEVENT := $(shell $(PKG_CONFIG) --exists libtraceevent libtracefs 2>/dev/null && echo 1 || echo 0)
endif
TOPO_LIBS := $(if $(filter 1,$(HWLOC)),$(shell $(PKG_CONFIG) --libs hwloc))
TRACE_LIBS := $(if $(filter 1,$(TRACEEVENT)),$(shell $(PKG_CONFIG) --libs libtracefs libtraceevent))
NUMA_LIBS := $(if $(filter 1,$(NUMA)),$(shell $(PKG_CONFIG) --libs numa 2>/dev/null || echo -lnuma))

# lib/ is in tiers, one folder each (docs/design.md, scripts/check_tiers.py);
# of the topology and NUMA sources, the one picked above.
LIB_SRCS := $(filter-out %/lib/base/topo_$(if $(filter 1,$(HWLOC)),sysfs,hwloc).c \
			 %/lib/base/numa_$(if $(filter 1,$(NUMA)),sysfs,libnuma).c \
			 %/lib/kernel/trace_event_raw$(if $(filter 1,$(TRACEEVENT)),_none).c, \
	      $(wildcard $(dir $(lastword $(MAKEFILE_LIST)))lib/*/*.c))
LIB_HDRS := $(wildcard $(dir $(lastword $(MAKEFILE_LIST)))lib/*/*.h)

CFLAGS += -O2 -g -std=gnu11 -D_GNU_SOURCE= -Wall -Wextra -Werror \
	  -Wmissing-prototypes -Wstrict-prototypes -Wshadow -Wformat=2 \
	  -Wno-format-nonliteral
CFLAGS += $(if $(filter 1,$(HWLOC)),$(shell $(PKG_CONFIG) --cflags hwloc))
CFLAGS += $(if $(filter 1,$(TRACEEVENT)),$(shell $(PKG_CONFIG) --cflags libtracefs libtraceevent))
LDLIBS += $(TOPO_LIBS) $(NUMA_LIBS) $(TRACE_LIBS) -lm -lpthread

# A program is its main file NAME.c and its parts NAME_*.c (timer_softirq.c,
# timer_softirq_cyclic.c, ...), with the parts' headers NAME_*.h.
.SECONDEXPANSION:
PARTS = $$(wildcard $$*_*.c $$*_*.h)

ifneq ($(wildcard ../lib.mk),)
# Inside a kernel tree: kselftest's lib.mk drives all/run_tests/install.
TEST_GEN_FILES += $(TOOLS)
include ../lib.mk
$(addprefix $(OUTPUT)/,$(PROGS) $(TOOLS)): $(OUTPUT)/%: %.c $(PARTS) $(LIB_SRCS) $(LIB_HDRS)
	$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) $(filter %.c,$^) $(LDLIBS) -o $@
$(addprefix $(OUTPUT)/,$(VARIANTS)): $(OUTPUT)/%: run.sh scripts/test_wrapper.sh
	./scripts/test_wrapper.sh $* >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@
else
# Standalone.
OUTPUT := $(CURDIR)
INSTALL_PATH ?= $(CURDIR)/install
BUILD := build
# The sanitizers of make san and make unit (tests/arm64.t: undefined
# alone, as ASan's start costs seconds a program under qemu-user).
SANITIZE ?= address,undefined
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
	     -fno-sanitize-recover=undefined

.PHONY: all run_tests install emit_tests gen_tar clean check deps unit \
	san bench module fuzz deps-dev

all: $(TEST_GEN_PROGS) $(TOOLS)

$(BUILD)/lib/%.o: lib/%.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

LIB_OBJS := $(patsubst lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS:$(dir $(lastword $(MAKEFILE_LIST)))lib/%=lib/%))

# Which topology, NUMA and trace event sources were picked: a build with
# other HWLOC, NUMA or TRACEEVENT values makes a new stamp, and the
# programs are linked again.
LIBS_STAMP := $(BUILD)/libs-hwloc$(HWLOC)-numa$(NUMA)-traceevent$(TRACEEVENT).stamp
$(LIBS_STAMP):
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/libs-*.stamp
	@touch $@

$(PROGS) $(TOOLS): %: %.c $(PARTS) $(LIB_OBJS) $(LIB_HDRS) $(LIBS_STAMP)
	$(CC) $(CFLAGS) $(filter %.c,$^) $(LIB_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

$(VARIANTS): %: run.sh scripts/test_wrapper.sh
	./scripts/test_wrapper.sh $* >$@.tmp && chmod +x $@.tmp && mv $@.tmp $@

# The same programs and the unit tests with ASan and UBSan, for make check.
# Another SANITIZE makes a new stamp, and everything under san/ is built
# again.
comma := ,
SAN_STAMP := $(BUILD)/san/sanitize-$(subst $(comma),-,$(SANITIZE)).stamp
$(SAN_STAMP):
	@mkdir -p $(BUILD)/san
	@rm -f $(BUILD)/san/sanitize-*.stamp
	@touch $@

$(BUILD)/san/lib/%.o: lib/%.c $(LIB_HDRS) $(SAN_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

SAN_OBJS := $(patsubst $(BUILD)/lib/%,$(BUILD)/san/lib/%,$(LIB_OBJS))
SAN_PROGS := $(addprefix $(BUILD)/san/,$(PROGS) $(TOOLS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_PROGS := $(patsubst tests/unit/%.c,$(BUILD)/san/unit/%,$(UNIT_SRCS))
# Programs the tests run to check the harness itself (tests/plan.t).
HARNESS_SRCS := $(wildcard tests/harness/*.c)
HARNESS_PROGS := $(patsubst tests/harness/%.c,$(BUILD)/san/harness/%,$(HARNESS_SRCS))

$(SAN_PROGS): $(BUILD)/san/%: %.c $(PARTS) $(SAN_OBJS) $(LIB_HDRS) $(LIBS_STAMP)
	$(CC) $(CFLAGS) $(SAN_FLAGS) $(filter %.c,$^) $(SAN_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

# The unit tests also test the programs' parts (NAME_*.c, not their main
# files): one archive of them, from which each test takes what it uses.
PART_SRCS := $(foreach p,$(PROGS) $(TOOLS),$(wildcard $(p)_*.c))
PART_OBJS := $(patsubst %.c,$(BUILD)/san/parts/%.o,$(PART_SRCS))

$(BUILD)/san/parts/%.o: %.c $(wildcard *.h) $(LIB_HDRS) $(SAN_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN_FLAGS) -c $< -o $@

$(BUILD)/san/parts.a: $(PART_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/san/unit/%: tests/unit/%.c $(BUILD)/san/parts.a $(SAN_OBJS) $(LIB_HDRS) $(wildcard *.h)
	@mkdir -p $(BUILD)/san/unit
	$(CC) $(CFLAGS) $(SAN_FLAGS) -I. $< $(BUILD)/san/parts.a $(SAN_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/san/harness/%: tests/harness/%.c $(SAN_OBJS) $(LIB_HDRS)
	@mkdir -p $(BUILD)/san/harness
	$(CC) $(CFLAGS) $(SAN_FLAGS) -I. $< $(SAN_OBJS) $(LDFLAGS) $(LDLIBS) -o $@

san: $(SAN_PROGS) $(UNIT_PROGS) $(HARNESS_PROGS)

# The unit tests alone (tests/arm64.t builds them cross).
unit: $(UNIT_PROGS)

# libFuzzer build of the result reader (needs clang): make fuzz, then
# build/fuzz/result_read -dict=tests/fuzz/json.dict CORPUS_DIR tests/data
FUZZ_CC ?= clang
FUZZ_SRCS := lib/base/json_read.c lib/result/result.c lib/base/stats.c lib/base/util.c
$(BUILD)/fuzz/result_read: tests/fuzz/result_read.c $(FUZZ_SRCS) $(LIB_HDRS)
	@mkdir -p $(BUILD)/fuzz
	$(FUZZ_CC) $(filter-out -Werror,$(CFLAGS)) -Werror -I. \
		-fsanitize=fuzzer,address,undefined $< $(FUZZ_SRCS) -lm -o $@

fuzz: $(BUILD)/fuzz/result_read

run_tests: all
	@[ "$$(id -u)" -eq 0 ] || echo "run_tests: not root: tests that need tracepoints or scheduling policies will SKIP" >&2
	./run.sh

install: all
	mkdir -p $(INSTALL_PATH)
	cp -p $(TEST_GEN_PROGS) $(TOOLS) $(TEST_PROGS_EXTENDED) $(TEST_FILES) $(INSTALL_PATH)/
	@if ls module/*.ko >/dev/null 2>&1; then \
		mkdir -p $(INSTALL_PATH)/module; cp -p module/*.ko $(INSTALL_PATH)/module/; fi

# As kselftest's emit_tests: one "collection:test" line per test.
emit_tests:
	@for t in $(TEST_GEN_PROGS); do echo "isolbench:$$t"; done

gen_tar: install
	tar -C $(dir $(INSTALL_PATH)) -czf $(CURDIR)/isolbench.tar.gz $(notdir $(INSTALL_PATH))
	@echo "wrote $(CURDIR)/isolbench.tar.gz"

# The project's own tests, under prove, against sanitizer builds: two at
# a time, then one at a time those whose verdicts hang on the host's
# timing (marked "# prove: alone"). Both groups run; either failing fails.
# The shared group's longest first (measured: 50 to 150 s each), so
# that the two lanes end together rather than one test running alone.
CHECK_ALONE = $(shell grep -l '^# prove: alone' tests/*.t)
CHECK_LONG = tests/vm_judge.t tests/arm64.t tests/tiers.t tests/style.t tests/kselftest_runner.t \
	     tests/stable_names.t tests/no_libs.t tests/vm.t
CHECK_SHARED = $(CHECK_LONG) $(filter-out $(CHECK_ALONE) $(CHECK_LONG),$(wildcard tests/*.t))
check: all san
	@rc=0; \
	ISOLBENCH_BIN=$(CURDIR)/$(BUILD)/san prove -v --timer -j2 $(CHECK_SHARED) || rc=1; \
	ISOLBENCH_BIN=$(CURDIR)/$(BUILD)/san prove -v --timer $(CHECK_ALONE) || rc=1; \
	exit $$rc

deps:
	./scripts/install-deps.sh

# What the project's own tests use besides: qemu for vm/, checkpatch, clang.
deps-dev:
	./scripts/install-deps.sh --vm --dev

bench: all
	@for b in bench/*.sh; do echo "== $$b"; $$b || exit 1; done

# The optional helper module(s) in module/, built with the kernel's kbuild.
KDIR ?= /lib/modules/$(shell uname -r)/build
module:
	@if [ "$(KDIR)" = "/lib/modules/$$(uname -r)/build" ] && [ ! -e /proc/modules ]; then \
		echo "make module: the running kernel $$(uname -r) has no module support (CONFIG_MODULES is off); pass KDIR= to build for another kernel" >&2; \
		exit 1; fi
	$(MAKE) -C module KDIR=$(KDIR)

include vm/vm.mk

clean:
	rm -rf $(BUILD) $(TEST_GEN_PROGS) $(TOOLS) install isolbench.tar.gz
endif
