#!/bin/sh
# deps.sh PKG... - make sure the Debian packages keyward needs are installed.
# As root it installs what is missing with apt-get; otherwise it prints the
# exact command to run and fails, so a build never half-works.
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
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
