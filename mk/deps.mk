# mk/deps.mk - make deps: the Debian 12 packages the build, the tests,
# the fuzzers and the package build need, installed by tests/deps.sh
# (what is missing only). .ci/run installs the same list on a fresh CI
# machine: a package added here is added there.
DEB_PKGS = build-essential valgrind pkg-config libssl-dev libseccomp-dev libcap-ng-dev \
           openssh-client openssh-server perl procps psmisc util-linux jq strace \
           debhelper dpkg-dev lintian systemd groff man-db fakeroot \
           clang libclang-rt-14-dev libfido2-dev libp11-kit-dev \
           softhsm2 opensc git python3-paramiko \
           swtpm swtpm-tools tpm2-tools libtpm2-pkcs11-1 libtpm2-pkcs11-tools \
           p11-kit p11-kit-modules ykcs11 pcscd \
           fido2-tools python3-cryptography tcsh rsyslog \
           vsmartcard-vpcd vsmartcard-vpicc python3-pycryptodome iproute2 unicode-data \
           ssh-askpass xvfb x11-utils imagemagick \
           libsystemd-dev dbus-daemon python3-dbusmock
# node and npm (the ML-DSA oracle's tests) only where no node is installed:
# a node from another source ships its own npm, which Debian's npm
# package conflicts with.
NODE_PKGS = $(if $(shell command -v npm),,nodejs npm)

deps:
	@sh tests/deps.sh $(DEB_PKGS) $(NODE_PKGS)

.PHONY: deps
