# mk/fuzz.mk - the libFuzzer harnesses of tests/fuzz/ (fuzz_*.c; what
# each one checks is at its head), built with clang, ASan and UBSan into
# build-fuzz/, run and replayed.
#
# make fuzz [FUZZ_SECONDS=20]: each harness runs for FUZZ_SECONDS from its
# seed corpus tests/fuzz/corpus/NAME (new inputs go to
# build-fuzz/corpus/NAME), then is replayed over its corpus and its
# regression inputs tests/fuzz/regress/NAME. A crash stops make and leaves
# the input in build-fuzz/crash/NAME/: keep it in tests/fuzz/regress/NAME/.
# make fuzz-regress: only the replay of corpus and regression inputs (fast).
# make fuzz-build: the harnesses only. -j runs the harnesses side by side.
# tests/fuzz/mkcorpus.sh regenerates the seed corpora from real OpenSSH
# traffic.
FUZZ_SECONDS ?= 20
FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
# clang 14 takes the stack-clash and CET flags; it refuses
# -ftrivial-auto-var-init=zero without a flag later clangs reject, and
# zeroing would hide from the fuzzer the uninitialised reads it should
# find. No _FORTIFY_SOURCE with ASan (see OPT in mk/build.mk). clang's
# -Wstring-concatenation takes a long string of a designated initializer
# written over two lines (policy/session.c) for a missing comma.
FUZZ_FLAGS    = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer -g -O1 -I. -D_GNU_SOURCE -std=c11 \
                -DKEYWARD_LIBEXECDIR='"$(LIBEXECDIR)"' \
                -fstack-clash-protection -fcf-protection \
                $(WARN) -Wno-format-nonliteral -Wno-string-concatenation
# What a harness may call: the shared folders, and the code of the program
# folders whose parsers the harnesses reach (monitor/, policy/,
# keyholder/, peer/, ctl/), but each main.c, as one archive built with the
# fuzzer's flags. The linker takes from it only what a harness uses.
FUZZ_SRC      = $(IPC_SRC) $(KEYS_SRC) $(WIRE_SRC) $(RULES_SRC) $(CRYPTO_SRC) \
                $(MON_SRC) $(POL_SRC) $(KH_SRC) $(PEER_SRC) \
                $(filter-out ctl/main.c,$(wildcard ctl/*.c))
FUZZ_NAMES    = $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_ENV      = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
FUZZ_RUN      = -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 -print_final_stats=1

fuzzobj = $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(1))

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(FUZZ_BUILD)/obj -name '*.d' 2>/dev/null)

$(FUZZ_BUILD)/libkwfuzz.a: $(call fuzzobj,$(FUZZ_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/libkwfuzz.a
	@$(if $(V),,echo "  FUZZLD  $@")
	$(Q)$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $(filter %.o %.a,$^) $(LIBCRYPTO)

# Kept: a harness's object is no intermediate file to delete.
.SECONDARY: $(patsubst %,$(FUZZ_BUILD)/obj/tests/fuzz/%.o,$(FUZZ_NAMES))

fuzz-build: $(addprefix $(FUZZ_BUILD)/,$(FUZZ_NAMES))

fuzz-run-%: $(FUZZ_BUILD)/%
	@mkdir -p $(FUZZ_BUILD)/corpus/$* $(FUZZ_BUILD)/crash/$*
	@echo "  FUZZ    $* for $(FUZZ_SECONDS) s (log: $(FUZZ_BUILD)/$*.log)"
	@$(FUZZ_ENV) $< $(FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_BUILD)/crash/$*/ \
		$(FUZZ_BUILD)/corpus/$* tests/fuzz/corpus/$* $(wildcard tests/fuzz/grown/$*) \
		>$(FUZZ_BUILD)/$*.log 2>&1 || \
		{ tail -n 80 $(FUZZ_BUILD)/$*.log; echo "fuzz: $* failed; the input is in" \
		  "$(FUZZ_BUILD)/crash/$*/: keep it in tests/fuzz/regress/$*/"; exit 1; }
	@grep -E '^#[0-9]+[[:space:]]+DONE' $(FUZZ_BUILD)/$*.log | \
		sed -E 's/^#([0-9]+)[[:space:]]+DONE +/  $*: \1 runs, /'

# Every seed, kept fuzzer-grown input and regression input once (the
# harness runs each file given).
fuzz-replay-%: $(FUZZ_BUILD)/%
	@echo "  REPLAY  $*: $(words $(wildcard tests/fuzz/corpus/$*/*)) seeds," \
		"$(words $(wildcard tests/fuzz/grown/$*/*)) grown inputs," \
		"$(words $(filter-out %/README,$(wildcard tests/fuzz/regress/$*/*)))" \
		"regression inputs"
	@$(FUZZ_ENV) $< -timeout=10 $(wildcard tests/fuzz/corpus/$*/*) \
		$(wildcard tests/fuzz/grown/$*/*) \
		$(filter-out %/README,$(wildcard tests/fuzz/regress/$*/*)) \
		>$(FUZZ_BUILD)/$*.replay.log 2>&1 || \
		{ tail -n 80 $(FUZZ_BUILD)/$*.replay.log; echo "fuzz: $* fails on a kept input"; exit 1; }

fuzz: deps
	$(MAKE) $(addprefix fuzz-run-,$(FUZZ_NAMES))
	$(MAKE) fuzz-regress

fuzz-regress: deps
	$(MAKE) $(addprefix fuzz-replay-,$(FUZZ_NAMES))

.PHONY: fuzz fuzz-regress fuzz-build
