# shellcheck shell=bash
# tests/integration/lib-openssh10.sh - for tests that need OpenSSH >= 10.4
# built from source (Debian 12 ships 9.2; CI cannot download a newer one).
# Source it after lib.sh, then call openssh10_require before the first
# assertion.
#
#   KEYWARD_OPENSSH_10=PREFIX   the build's prefix (e.g. /opt/openssh-10.5,
#                   from ./configure --prefix=PREFIX; make install); unset,
#                   or not an OpenSSH >= 10.4: the file skips
#   openssh10_require COUNT     without such a build: COUNT skips (counted
#                   as skips, never passes), the plan, exit 0. With it:
#                   O10=PREFIX, O10_VERSION (e.g. 10.5), PREFIX/bin first
#                   in PATH (ssh, ssh-add, ssh-keygen are 10.x's) and
#                   SSHD=PREFIX/sbin/sshd for start_sshd
#   openssh10_agent             is the agent under test 10.x's own ssh-agent
#                   (AGENT=PREFIX/bin/ssh-agent, the baseline run)?
#
# Run a file twice, once per agent:
#   KEYWARD_OPENSSH_10=/opt/openssh-10.5 prove tests/integration/FILE.t
#   KEYWARD_OPENSSH_10=/opt/openssh-10.5 AGENT=/opt/openssh-10.5/bin/ssh-agent \
#       prove tests/integration/FILE.t

O10=${KEYWARD_OPENSSH_10:-}
O10_VERSION=

# _openssh10_version PREFIX: "MAJOR.MINOR" of PREFIX/bin/ssh, or nothing
_openssh10_version() {
	"$1/bin/ssh" -V 2>&1 | sed -n 's/^OpenSSH_\([0-9]*\)\.\([0-9]*\).*/\1.\2/p' | head -n 1
}

openssh10_require() {
	local count=$1 why major minor
	if [ -z "$O10" ]; then
		why="KEYWARD_OPENSSH_10 is not set (an OpenSSH >= 10.4 build prefix)"
	elif [ ! -x "$O10/bin/ssh" ] || [ ! -x "$O10/sbin/sshd" ]; then
		why="KEYWARD_OPENSSH_10=$O10 has no bin/ssh or sbin/sshd"
	else
		O10_VERSION=$(_openssh10_version "$O10")
		major=${O10_VERSION%%.*} minor=${O10_VERSION#*.}
		if [ -z "$O10_VERSION" ] || [ "$major" -lt 10 ] ||
			{ [ "$major" = 10 ] && [ "$minor" -lt 4 ]; }; then
			why="KEYWARD_OPENSSH_10=$O10 is OpenSSH ${O10_VERSION:-(unknown)}, not >= 10.4"
		fi
	fi
	if [ -n "${why:-}" ]; then
		skip_n "$count" "$why"
		done_testing
		exit 0
	fi
	PATH=$O10/bin:$PATH
	SSHD=$O10/sbin/sshd
	# 10.x's own default key exchange (lib.sh picks one for 9.2's ssh)
	SSH_KEX=
	export PATH
	diag "OpenSSH $O10_VERSION from $O10; agent under test: $AGENT"
}

openssh10_agent() { [ "$AGENT" = "$O10/bin/ssh-agent" ]; }
