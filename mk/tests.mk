# mk/tests.mk - the tests: the test programs (make tests: unit tests, the
# drivers of tests/tools/, the hostile client and peers of tests/hostile/,
# the test FIDO middleware and PKCS#11 module), the check targets that run
# them (check, check-fast, check-asan, check-unit, check-style,
# check-integration, check-cost and the builds they start), and the timed
# runs that are never part of check: demo, bench, stress. tests/README.md
# says how to run one file alone.

# ---------------------------------------------------------------- test programs
# A unit test is tests/unit/test_X.c; a driver tests/tools/X.c; a hostile
# peer tests/hostile/hostile_X.c. Each is one object, linked with every
# archive (the linker takes only what it uses) into $(BUILD)/tests/.
UNIT_SRC  = $(wildcard tests/unit/test_*.c)
TOOL_SRC  = $(wildcard tests/tools/*.c)
HPEER_SRC = $(wildcard tests/hostile/hostile_*.c)
TESTPROG_SRC = $(UNIT_SRC) $(TOOL_SRC) $(HPEER_SRC)
UNIT  = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
TOOLS = $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(TOOL_SRC) $(HPEER_SRC)))
TESTLIBS = $(LIBMON) $(LIBPOL) $(LIBKH) $(LIBPEER) $(LIBRULES) $(LIBCRY) $(LIBSBX) $(LIBIPC)

# The hostile client (tests/hostile/attack), a TAP program run by
# tests/integration/1NN-hostile-*.t (make check) and by make stress, which
# runs its long cases against keyward and ssh-agent: one file per attack
# family beside the attack library (tests/hostile/lib.c), all of
# tests/hostile/ but the hostile peers.
ATTACK_SRC = $(filter-out $(HPEER_SRC),$(wildcard tests/hostile/*.c))

tests: $(UNIT) $(TOOLS) $(BUILD)/tests/attack $(BUILD)/tests/libkwsk-test.so \
       $(BUILD)/tests/libkwp11-hostile.so

# The stem names the program; its object is that of the one source of
# TESTPROG_SRC with that name: $(call testobj,STEM), expanded a second
# time, when the stem is known.
testobj = $(call obj,$(filter %/$(1).c,$(TESTPROG_SRC)))
.SECONDEXPANSION:
$(UNIT) $(TOOLS): $(BUILD)/tests/%: $$(call testobj,$$*) $(TESTLIBS)
	$(call link,$(LIBCRYPTO) $(LIBSECCOMP) -lpthread)

# test_rules_oom fails the policy code's allocations on demand.
$(BUILD)/tests/test_rules_oom: LDFLAGS += -Wl,--wrap=malloc,--wrap=calloc

$(BUILD)/tests/attack: $(call obj,$(ATTACK_SRC)) $(LIBIPC)
	$(call link,$(LIBCRYPTO) -lpthread)

# Shared objects, compiled and linked in one step, keep their header
# dependencies under $(BUILD)/obj too, where mk/build.mk's include finds
# them: $(call depf,SOURCE).
depf = -MMD -MP -MF $(BUILD)/obj/$(basename $(1)).d

# The test FIDO middleware (a SecurityKeyProvider, tests/sk/provider.c):
# a shared object, so -fPIC and -shared in place of -fPIE and -pie. Never
# sanitized: the real ssh-keygen and ssh-sk-helper load it, and a library
# built with ASan cannot be loaded into a program built without.
SK_TEST_CFLAGS = $(filter-out -fsanitize=% -fno-sanitize-recover=% -DKEYWARD_SANITIZE,$(CFLAGS))
$(BUILD)/tests/libkwsk-test.so: tests/sk/provider.c
	@mkdir -p $(dir $@) $(BUILD)/obj/tests/sk
	@$(if $(V),,echo "  CCLD    $@")
	$(Q)$(CC) $(CPPFLAGS) $(SK_TEST_CFLAGS) -fPIC -shared -Wl,-z,relro,-z,now \
		-Wl,-z,noexecstack -Wl,-z,defs $(call depf,$<) -o $@ $< $(LIBCRYPTO) $(LIBFIDO2)

# A hostile PKCS#11 module (tests/p11/hostile.c), loaded by keyward-pkcs11
# in 145-p11-hostile-module.t; unsanitized like the FIDO middleware.
$(BUILD)/tests/libkwp11-hostile.so: tests/p11/hostile.c
	@mkdir -p $(dir $@) $(BUILD)/obj/tests/p11
	@$(if $(V),,echo "  CCLD    $@")
	$(Q)$(CC) $(CPPFLAGS) $(P11KIT_CFLAGS) $(SK_TEST_CFLAGS) -fPIC -shared -pthread \
		-Wl,-z,relro,-z,now -Wl,-z,noexecstack -Wl,-z,defs $(call depf,$<) -o $@ $<

# ---------------------------------------------------------------- check
# Run with the AGENT variable to point the integration suite elsewhere, e.g.
#   make check-integration AGENT=/usr/bin/ssh-agent
AGENT ?= $(CURDIR)/$(BUILD)/keyward

# CHECK_JOBS: how many integration files run at once, twice the cores: most
# of a file's time is spent waiting (sshd logins, lifetimes, prompts,
# timeouts), not computing. The builds and the fuzzers make check starts
# run one per core (BUILD_JOBS). CHECK_JOBS=1 runs the files one at a time.
NPROC      := $(shell nproc 2>/dev/null || echo 1)
BUILD_JOBS ?= $(NPROC)
CHECK_JOBS ?= $(shell echo $$(($(NPROC) * 2)))

# Each integration file has its own $T, agents, sockets and sshd ports, so
# they run CHECK_JOBS at a time. A file whose head has a line
# "# check: serial (REASON)" runs after all the others, alone, one at a
# time: it changes what the others see (the next pid) or bounds how
# fast the agent answers under a flood of its own. "# check: early" marks
# the longest files, started first so that the parallel part does not end
# with one of them running alone. prove's rule "par=tests/integration/{A,B}"
# lets A and B run beside each other, started in the order they are given;
# the files no rule names run afterwards, one after another.
IT_DIR    = tests/integration
# "# check: plain only (REASON)": the file runs none of keyward's code
# (ssh-agent alone, a check of the sources or documents); the pass that
# has KW_STOCK_FROM set (make check's ASan pass) does not run it at all,
# and says so. It is neither run nor counted there, not skipped.
IT_ALL    = $(sort $(wildcard $(IT_DIR)/*.t))
IT_PLAIN  = $(shell grep -l '^\# check: plain only' $(IT_ALL))
IT_FILES  = $(if $(KW_STOCK_FROM),$(filter-out $(IT_PLAIN),$(IT_ALL)),$(IT_ALL))
IT_SERIAL = $(shell grep -l '^\# check: serial' $(IT_FILES))
# "# check: serial, alone (REASON)": a serial file beside which nothing
# at all may run, not even the niced work of IT_BESIDE (153-peer-recycle.t
# chooses the next pid: any fork meanwhile would take it). These run
# first of the serial files, before IT_BESIDE starts.
IT_ALONE  = $(shell grep -l '^\# check: serial, alone' $(IT_FILES))
IT_SHARED = $(filter-out $(IT_ALONE),$(IT_SERIAL))
IT_EARLY  = $(filter-out $(IT_SERIAL),$(shell grep -l '^\# check: early' $(IT_FILES)))
IT_PAR    = $(IT_EARLY) $(filter-out $(IT_SERIAL) $(IT_EARLY),$(IT_FILES))
comma    := ,
empty    :=
space    := $(empty) $(empty)
IT_RULE   = $(IT_DIR)/{$(subst $(space),$(comma),$(strip $(notdir $(IT_PAR))))}

# The unit tests: the C programs, and the tables of the tree's own
# checkers (tests/unit/*.t, e.g. funclen.t for tests/tools/funclen.pl).
UNIT_T = $(wildcard tests/unit/*.t)
# BUILD_JOBS at a time (no unit test is timed), test_rules_gen first: it
# runs for RULES_GEN_SECONDS (20) and was most of the pass, one core idle.
check-unit: all tests
	prove -v -j$(BUILD_JOBS) -e '' $(filter %/test_rules_gen,$(UNIT)) \
		$(filter-out %/test_rules_gen,$(UNIT)) $(UNIT_T)

# check-style: the tree's own rules that need no build, read from the
# sources: no product function longer than 60 lines (doc/style.md;
# tests/tools/funclen.pl names each one that is).
check-style:
	perl tests/tools/funclen.pl

# HOSTILE_REFERENCE=0: the hostile files (1NN-hostile-*.t) do not run each
# case again against /usr/bin/ssh-agent beside keyward. That run asserts
# nothing: it prints ssh-agent's figures as comments, which prove does not
# show here, and it took more than half of those files' time. make stress,
# prove -v on one file, and HOSTILE_REFERENCE=1 run it.
HOSTILE_REFERENCE ?= 0

# KW_MATRIX_SHARE: the dest scenario files leave their allow/deny rows
# there, and 199-dest-matrix.t compares those with ssh-agent's rather than
# running every scenario against keyward again. KW_STOCK_FROM=DIR: the
# /usr/bin/ssh-agent halves that an earlier pass ran and left in DIR are
# taken from there, not run again (make check's ASan pass: ssh-agent is
# the same binary, not built with the sanitizers). Keyward halves always run.
# There too, a part of a file that runs none of keyward's code (ssh-agent
# alone, the sources, the test tools) is not planned: lib.sh's stock_part.
# Not with CHECK_JOBS=1: 199 would wait, alone, for files that run after it.
KW_MATRIX_SHARE = $(if $(filter 1,$(CHECK_JOBS)),,$(CURDIR)/$(BUILD)/check-matrix)
# KW_KEY_CACHE: RSA keys made once (tests/tools/mkkeys.sh, before the
# files run) and taken by them (lib.sh, key_cached), the plain tree's for
# both passes.
KW_KEY_CACHE = $(CURDIR)/build/test-keys
# HOSTILE_WIRE_STRIDE: the compromised monitor and policy (128, 129)
# cut each message they damage to every length. Once the plain pass has
# (KW_STOCK_FROM set: make check's ASan pass) a cut deep inside a
# string's bytes, where every cut takes the decoder the same way, is made
# at every 16th length only; the ends of every field, all of them
# (tests/hostile/engine.h, wire_cut_here). 1: every length.
HOSTILE_WIRE_STRIDE ?= $(if $(KW_STOCK_FROM),16,1)
# The environment of every integration pass (check-integration, check-cost).
IT_ENV = ASAN_OPTIONS=detect_leaks=0 KEYWARD_BUILD=$(CURDIR)/$(BUILD) AGENT=$(AGENT) \
	HOSTILE_REFERENCE=$(HOSTILE_REFERENCE) KW_KEY_CACHE=$(KW_KEY_CACHE) \
	KW_MATRIX_SHARE=$(KW_MATRIX_SHARE) KW_STOCK_FROM=$(KW_STOCK_FROM) \
	HOSTILE_WIRE_STRIDE=$(HOSTILE_WIRE_STRIDE)
# --failures: a failing file's "not ok" lines, which its stderr, shared by
# the files running beside it, would not tell apart.
#
# IT_BESIDE: a shell command (make check's next build and unit tests, or
# the fuzzers) run at nice 19 while the serial files but IT_ALONE run,
# one at a time, about 100 s that leave the machine 35-62 % idle
# (tests/tools/beside.sh: its output is printed after theirs, its failure
# fails check-integration). Empty (the default) runs nothing. The serial
# files bound how fast keyward answers, or count its answers, under a
# load of their own; a nice-19 neighbour gets 1/68 of a nice-0 task's
# share of a core, and all of them passed beside one (and beside far more
# nice-0 load from other work). 153-peer-recycle.t cannot share the
# machine with any fork, and is IT_ALONE. A pass is two prove runs, the
# second the files IT_BESIDE runs beside; every file runs, whatever
# failed before it.
IT_BESIDE ?=
IT_PROVE  = env $(IT_ENV) prove --timer --failures
check-integration: all tests
	$(MAKE) TESTING=1 SANITIZE= all
	@rm -rf $(BUILD)/check-matrix
	@sh tests/tools/mkkeys.sh $(KW_KEY_CACHE)
	@echo "  PROVE   $(words $(IT_PAR)) files $(CHECK_JOBS) at a time, then alone:" \
		"$(notdir $(IT_ALONE) $(IT_SHARED))"
	$(if $(KW_STOCK_FROM),@echo "  PROVE   not in this pass (run by the plain pass, no keyward" \
		"code in them): $(notdir $(IT_PLAIN))")
	$(Q)st=0; \
	$(if $(IT_PAR)$(IT_ALONE),$(IT_PROVE) -j$(CHECK_JOBS) '--rules=par=$(IT_RULE)' \
		$(IT_PAR) $(IT_ALONE) || st=1;) \
	$(if $(IT_BESIDE),echo "  BESIDE  at nice 19 beside the next files: $(IT_BESIDE)"; \
		sh tests/tools/beside.sh $(BUILD)/check-beside.log '$(IT_BESIDE)') \
		$(if $(IT_SHARED),$(IT_PROVE) $(IT_SHARED),true) || st=1; \
	exit $$st

# check-cost: the integration pass as check-integration runs it, each file
# under tests/tools/check-cost.pl, which prints the CPU seconds (user +
# system, every process the file started included) per file and in all,
# and keeps the table in $(BUILD)/check-cost.tsv (check-cost.pl -c A B
# compares two). IT_FILES=... for some files only.
check-cost: all tests
	$(MAKE) TESTING=1 SANITIZE= all
	@rm -rf $(BUILD)/check-matrix
	@sh tests/tools/mkkeys.sh $(KW_KEY_CACHE)
	$(IT_ENV) \
		perl tests/tools/check-cost.pl -j $(CHECK_JOBS) -o $(BUILD)/check-cost.tsv \
		$(IT_PAR) $(IT_SERIAL)

# The trees the check targets test, built first, BUILD_JOBS at a time:
# check-build-plain (build/ and build-testing/), check-build-asan
# (build-asan/), check-build (both, and the fuzzers). make check builds
# only the first first; the others are built beside its integration
# passes (IT_BESIDE).
check-build-plain:
	$(MAKE) -j$(BUILD_JOBS) SANITIZE= all tests
	$(MAKE) -j$(BUILD_JOBS) SANITIZE= TESTING=1 all
check-build-asan:
	$(MAKE) -j$(BUILD_JOBS) SANITIZE=1 all tests
	$(MAKE) -j$(BUILD_JOBS) SANITIZE= TESTING=1 all
check-build:
	$(MAKE) check-build-plain
	$(MAKE) check-build-asan
	$(MAKE) -j$(BUILD_JOBS) fuzz-build

# The suite is where a new warning must fail: WERROR=1 whatever was given.
check-fast: deps
	$(MAKE) check-style
	$(MAKE) WERROR=1 check-build-plain
	$(MAKE) WERROR=1 check-unit check-integration

check-asan: deps
	$(MAKE) WERROR=1 check-build-asan
	$(MAKE) WERROR=1 SANITIZE=1 check-unit check-integration

# check: the README's test command. The style check first (it needs no
# build), then the normal trees are built; then the normal pass, the
# ASan/UBSan pass, and the fuzzers, BUILD_JOBS at a time (see below):
# they replay their corpora and regression inputs, then run
# FUZZ_CHECK_SECONDS each (bounded, for CI; mk/fuzz.mk). Each run starts
# again from the kept inputs, and within 2 s of 10 every harness had
# reached all but 1-4 % of the coverage it reached in 10: check's run is a
# smoke test of the harnesses, the search is make fuzz (FUZZ_SECONDS,
# longer).
#
# Each integration pass ends with its serial files, about 100 s that
# leave the machine 35-62 % idle; the work of the next step runs there, at
# nice 19 (IT_BESIDE, check-integration): beside the normal pass's, the
# ASan/UBSan tree's build and unit tests; beside the ASan pass's, the
# fuzzers' build, runs and replay (their runs are bounded in time, not in
# inputs: niced, they try fewer inputs in their FUZZ_CHECK_SECONDS; the
# replay is whole). A background step that fails fails the pass it ran
# beside, its output printed after the pass's.
FUZZ_CHECK_SECONDS ?= 3
CHECK_BESIDE_PLAIN = $(MAKE) WERROR=1 -j$(BUILD_JOBS) SANITIZE=1 all tests && \
	$(MAKE) WERROR=1 SANITIZE=1 check-unit
CHECK_BESIDE_ASAN  = $(MAKE) WERROR=1 -j$(BUILD_JOBS) fuzz FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS)
check: deps
	$(MAKE) check-style
	$(MAKE) WERROR=1 check-build-plain
	$(MAKE) WERROR=1 check-unit
	$(MAKE) WERROR=1 check-integration IT_BESIDE='$(CHECK_BESIDE_PLAIN)'
	$(MAKE) WERROR=1 SANITIZE=1 KW_STOCK_FROM=$(CURDIR)/build/check-matrix \
		check-integration IT_BESIDE='$(CHECK_BESIDE_ASAN)'

# ---------------------------------------------------------------- timed runs
demo: deps all
	sh tests/demo.sh $(CURDIR)/$(BUILD)

# bench: keyward side by side with /usr/bin/ssh-agent (tests/bench/).
# Timed, so never part of check. BENCH_QUICK=1 for a short run,
# BENCH_ONLY=memory for the memory figures alone.
bench: deps all $(BUILD)/bench
	BENCH_QUICK=$(BENCH_QUICK) BENCH_ONLY=$(BENCH_ONLY) sh tests/bench/run.sh $(CURDIR)/$(BUILD)

$(BUILD)/bench: $(call obj,tests/bench/bench.c) $(LIBIPC)
	$(call link,$(LIBCRYPTO) -lpthread)

# stress: the hostile suite's long cases (tests/hostile/stress.sh), a
# few minutes each, against keyward and /usr/bin/ssh-agent. Timed and
# long, so never part of check. HOSTILE_SOAK_SECONDS sets the soak (180).
# Then the generated rules test (test_rules_gen: 20 s in check) for
# RULES_GEN_STRESS_SECONDS.
RULES_GEN_STRESS_SECONDS ?= 600
stress: all tests
	RULES_GEN_SECONDS=$(RULES_GEN_STRESS_SECONDS) $(BUILD)/tests/test_rules_gen
	sh tests/hostile/stress.sh $(CURDIR)/$(BUILD)

.PHONY: tests check check-fast check-asan check-unit check-integration check-style \
        check-cost check-build check-build-plain check-build-asan \
        demo bench stress
