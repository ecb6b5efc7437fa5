#!/bin/sh
# deps.sh PKG... - make sure the Debian packages keyward needs are installed.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails, so a build never half-works.
# One dpkg-query for all the packages (one per package took 6 s, and
# make check asks more than once); a package dpkg does not know is left
# out of its answer. Each installed package by its name and, for a
# multi-arch one, its name:arch too.
installed=" $(dpkg-query -W -f='${Status}|${Package} ${binary:Package}\n' "$@" 2>/dev/null |
	sed -n 's/^install ok installed|//p' | tr '\n' ' ') "
missing=""
for p in "$@"; do
	case $installed in
	*" $p "*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
		{ echo "deps: apt-get install failed"; exit 1; }
	exit 0
fi
echo "deps: missing packages:$missing"
echo "deps: run as root:  apt-get install -y$missing"
exit 1
