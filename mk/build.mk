# mk/build.mk - how keyward is compiled and linked: the install paths
# compiled in, the flags (warnings, hardening, SANITIZE=1, TESTING=1), the
# archives of shared code, one per folder, and the programs. The one
# compile rule and the one link recipe ($(call link,LIBS)) here serve the
# test programs of mk/tests.mk too.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec/keyward
DESTDIR    ?=

CC       ?= cc
# WERROR=0 lets a distribution's newer compiler warn without failing the
# build; warnings are errors by default and always in make check.
WERROR   ?= 1
WARN      = -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wshadow -Wformat=2 \
            -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# Stack probes against stack clashes, CET (shadow stack, IBT) markings,
# locals zeroed before use so an uninitialised read cannot leak a stale key.
HARDEN    = -fstack-protector-strong -fstack-clash-protection -fcf-protection \
            -ftrivial-auto-var-init=zero -fPIE -fno-strict-overflow
LDHARDEN  = -pie -Wl,-z,relro,-z,now -Wl,-z,noexecstack
CPPFLAGS += -I. -D_GNU_SOURCE -DKEYWARD_LIBEXECDIR='"$(LIBEXECDIR)"'

ifeq ($(SANITIZE),1)
# No _FORTIFY_SOURCE here: ASan intercepts the string and memory functions
# itself, and glibc's fortified inlines would bypass its checks.
BUILD    ?= build-asan
OPT       = -O1 -g -DKEYWARD_SANITIZE -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all
else
# -U first: dpkg-buildflags puts -D_FORTIFY_SOURCE=2 in CPPFLAGS, and a
# plain redefinition is a warning (an error with -Werror).
BUILD    ?= build
OPT       = -O2 -g -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3
endif
# TESTING=1: the test-only build of the sandbox tests (never installed).
# Only the sources that read KEYWARD_TESTING differ there; every other
# object would be the plain tree's, byte for byte, compiled again (most
# of the 26 s this tree took in make check). So, unless a header reads
# the macro (then every source may differ) or the sanitizers are on, the
# tree takes the other objects from the plain tree's build/obj/, which
# this run makes or brings up to date if it must, with the plain flags.
ifeq ($(TESTING),1)
BUILD    := build-testing
testing_grep   = $(shell grep -rl --include='*.$(1)' --exclude-dir='build*' KEYWARD_TESTING *)
TESTING_SRC   := $(call testing_grep,c)
TESTING_SHARE := $(if $(filter 1,$(SANITIZE)),,$(if $(call testing_grep,h),,1))
ifeq ($(TESTING_SHARE),1)
PLAIN_BUILD = build
$(BUILD)/obj/%.o: CPPFLAGS += -DKEYWARD_TESTING
else
CPPFLAGS += -DKEYWARD_TESTING
endif
endif

CFLAGS   += -std=c11 $(OPT) $(WARN) $(HARDEN)
LDFLAGS  += $(OPT) $(LDHARDEN)

LIBCRYPTO = -lcrypto
LIBFIDO2  = -lfido2
LIBSECCOMP = -lseccomp -lcap-ng
# keyward-session speaks D-Bus through sd-bus (libsystemd); keyward-pkcs11
# takes its PKCS#11 types and constants from p11-kit's header
# (libp11-kit-dev), and links nothing of p11-kit.
LIBSYSTEMD = $(shell pkg-config --libs libsystemd 2>/dev/null || echo -lsystemd)
P11KIT_CFLAGS = $(shell pkg-config --cflags p11-kit-1 2>/dev/null || echo -I/usr/include/p11-kit-1)

# V=1 shows the full compiler command lines.
Q = $(if $(V),,@)

# Shared code, one archive per folder. ipc/ (bytes and basics), keys/ (key
# formats) and wire/ (one file per boundary) must never need libcrypto: the
# monitor links them and must not map libcrypto (tests/integration checks ldd).
IPC_SRC     = $(wildcard ipc/*.c)
KEYS_SRC    = $(wildcard keys/*.c)
WIRE_SRC    = $(wildcard wire/*.c)
CRYPTO_SRC  = $(wildcard crypto/*.c)
# rules/: the rules language and the one pattern matcher, linked by the
# monitor, keyward-ctl and policy; no libcrypto (the monitor links it).
RULES_SRC   = $(wildcard rules/*.c)
# seccomp/: one filter per program (seccomp/monitor.c and seccomp/reaper.c
# for keyward, seccomp/NAME.c for keyward-NAME; keyward-ctl has none),
# each linked by its program below, and the sandbox code they all share:
# the rest of the folder.
SECCOMP_PROG = $(patsubst %,seccomp/%.c,monitor reaper $(HELPERS:keyward-%=%))
SANDBOX_SRC = $(filter-out $(SECCOMP_PROG),$(wildcard seccomp/*.c))
# A program folder's code but its main.c, as an archive the unit tests
# link too.
MON_SRC     = $(filter-out monitor/main.c,$(wildcard monitor/*.c))
POL_SRC     = $(filter-out policy/main.c,$(wildcard policy/*.c))
KH_SRC      = $(filter-out keyholder/main.c,$(wildcard keyholder/*.c))
PEER_SRC    = $(filter-out peer/main.c,$(wildcard peer/*.c))
# token/: two programs, each its own folder (token/sk/ keyward-sk,
# token/pkcs11/ keyward-pkcs11), and what both do alike, token/common/.
TOKEN_SRC   = $(wildcard token/common/*.c)
SK_SRC      = $(wildcard token/sk/*.c)
P11_SRC     = $(wildcard token/pkcs11/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
ifeq ($(TESTING_SHARE),1)
obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(filter $(TESTING_SRC),$(1))) \
      $(patsubst %.c,$(PLAIN_BUILD)/obj/%.o,$(filter-out $(TESTING_SRC),$(1)))
endif

# keyward, keyward-ctl, and the helper programs keyward starts (installed
# into LIBEXECDIR).
HELPERS = keyward-policy keyward-keyholder keyward-sk keyward-pkcs11 \
          keyward-peer keyward-broker keyward-prompter keyward-auditor \
          keyward-session
PROGS   = $(addprefix $(BUILD)/,keyward keyward-ctl $(HELPERS))

# The three base archives, in link order (wire/ uses keys/, both use ipc/).
LIBIPC  = $(BUILD)/libkwwire.a $(BUILD)/libkwkeys.a $(BUILD)/libkwipc.a
LIBCRY  = $(BUILD)/libkwcrypto.a
LIBRULES = $(BUILD)/libkwrules.a
LIBSBX  = $(BUILD)/libkwsandbox.a
LIBMON  = $(BUILD)/libkwmonitor.a
LIBPOL  = $(BUILD)/libkwpolicy.a
LIBKH   = $(BUILD)/libkwkeyholder.a
LIBPEER = $(BUILD)/libkwpeer.a
LIBTOKEN = $(BUILD)/libkwtoken.a

all: $(PROGS)

define compile
@mkdir -p $(dir $@)
@$(if $(V),,echo "  CC      $<")
$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
endef
$(BUILD)/obj/%.o: %.c
	$(compile)
ifeq ($(TESTING_SHARE),1)
$(PLAIN_BUILD)/obj/%.o: %.c
	$(compile)
endif

# Only the .d files whose source is still there: one a tree kept from
# before a source moved (tests/tools/hostile_monitor.c is now in
# tests/hostile/) names the old path, which make cannot make.
# (A TESTING=1 run reads the plain tree's too, for the objects it shares.)
DEPFILES := $(shell find $(BUILD)/obj $(PLAIN_BUILD:%=%/obj) -name '*.d' 2>/dev/null)
-include $(foreach d,$(DEPFILES),$(if $(wildcard $(patsubst $(BUILD)/obj/%.d,%.c,\
	$(patsubst $(PLAIN_BUILD)/obj/%.d,%.c,$(d)))),$(d)))

$(BUILD)/libkwipc.a: $(call obj,$(IPC_SRC))
$(BUILD)/libkwkeys.a: $(call obj,$(KEYS_SRC))
$(BUILD)/libkwwire.a: $(call obj,$(WIRE_SRC))
$(LIBCRY): $(call obj,$(CRYPTO_SRC))
$(LIBRULES): $(call obj,$(RULES_SRC))
$(LIBSBX): $(call obj,$(SANDBOX_SRC))
$(LIBMON): $(call obj,$(MON_SRC))
$(LIBPOL): $(call obj,$(POL_SRC))
$(LIBKH):  $(call obj,$(KH_SRC))
$(LIBPEER): $(call obj,$(PEER_SRC))
$(LIBTOKEN): $(call obj,$(TOKEN_SRC))
$(BUILD)/lib%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# Every program, keyward's and the tests', links the one way: its objects
# and archives (only those: a tree built before a source was split may
# give a target a header as prerequisite), then the system libraries
# given, $(call link,LIBS).
define link
@mkdir -p $(dir $@)
@$(if $(V),,echo "  LD      $@")
$(Q)$(CC) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(1)
endef

# keyward: the monitor, which parses what clients send and holds no key;
# seccomp/reaper.c is the filter of the child that waits for the others.
$(BUILD)/keyward: $(call obj,monitor/main.c seccomp/monitor.c seccomp/reaper.c) $(LIBMON) $(LIBRULES) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBSECCOMP))

$(BUILD)/keyward-policy: $(call obj,policy/main.c seccomp/policy.c) $(LIBPOL) $(LIBRULES) $(LIBCRY) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBCRYPTO) $(LIBSECCOMP))

$(BUILD)/keyward-keyholder: $(call obj,keyholder/main.c seccomp/keyholder.c) $(LIBKH) $(LIBCRY) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBCRYPTO) $(LIBSECCOMP) -lpthread)

# keyward-sk: the FIDO token helper, one process per signature; it
# dlopens a provider library or uses libfido2 ("internal").
$(BUILD)/keyward-sk: $(call obj,$(SK_SRC) seccomp/sk.c) $(LIBTOKEN) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBFIDO2) $(LIBCRYPTO) $(LIBSECCOMP) -ldl)

# keyward-pkcs11: the PKCS#11 token helper, one process per provider; it
# dlopens the module.
$(call obj,$(P11_SRC)): CPPFLAGS += $(P11KIT_CFLAGS)
$(BUILD)/keyward-pkcs11: $(call obj,$(P11_SRC) seccomp/pkcs11.c) $(LIBTOKEN) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBCRYPTO) $(LIBSECCOMP) -ldl)

# keyward-peer: the caller-identity inspector, the only process that
# reads /proc (one per agent; the monitor asks it who each client is).
$(BUILD)/keyward-peer: $(call obj,peer/main.c seccomp/peer.c) $(LIBPEER) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBSECCOMP))

# Policy's own helpers, each a program policy starts (wire/args.h):
# keyward-broker starts the token helpers, keyward-prompter runs askpass,
# keyward-auditor writes the audit trail (SHA-256 and HMAC: libcrypto),
# keyward-session watches the session, the only process that speaks D-Bus.
$(BUILD)/keyward-broker: $(call obj,$(wildcard broker/*.c) seccomp/broker.c) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBSECCOMP))

$(BUILD)/keyward-prompter: $(call obj,$(wildcard prompter/*.c) seccomp/prompter.c) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBSECCOMP))

$(BUILD)/keyward-auditor: $(call obj,$(wildcard auditor/*.c) seccomp/auditor.c) $(LIBCRY) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBCRYPTO) $(LIBSECCOMP))

$(BUILD)/keyward-session: $(call obj,$(wildcard session/*.c) seccomp/session.c) $(LIBSBX) $(LIBIPC)
	$(call link,$(LIBSYSTEMD) $(LIBSECCOMP))

# keyward-ctl: a client of the agent, and the audit trail's verifier
# (SHA-256 and HMAC from libcrypto, crypto/auditchain.c). Like keyward, it
# links no object of another program's folder (87-program-folders.t).
$(BUILD)/keyward-ctl: $(call obj,$(wildcard ctl/*.c)) $(LIBRULES) $(LIBCRY) $(LIBIPC)
	$(call link,$(LIBCRYPTO))

.PHONY: all
