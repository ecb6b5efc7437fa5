#!/bin/sh
# tests/tools/mkkeys.sh DIR - the RSA keys the integration files take
# from KW_KEY_CACHE (tests/integration/lib.sh, key_cached), made once for
# a make check run and never written by a test: RSA key generation is the
# costly one (an RSA-3072 key is most of a CPU-second), and the files
# made a dozen of them in each pass. For each size and number N:
# rsaBITS-N.pem (PKCS#8, what softhsm2-util imports), rsaBITS-N (the same
# key in OpenSSH's format, no passphrase) and rsaBITS-N.pub. A file takes
# each key once; with none left it makes its own.
set -eu
dir=$1
[ -e "$dir/done" ] && exit 0
tmp=$dir.tmp.$$
rm -rf "$tmp"
mkdir -p "$tmp"
for spec in 1024:2 2048:4 3072:4; do
	bits=${spec%:*} n=${spec#*:} i=1
	while [ "$i" -le "$n" ]; do
		k=$tmp/rsa$bits-$i
		(umask 077 && openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:$bits" \
			-out "$k.pem") 2>/dev/null
		cp "$k.pem" "$k"
		ssh-keygen -q -p -N '' -P '' -f "$k" >/dev/null
		ssh-keygen -y -f "$k" >"$k.pub"
		i=$((i + 1))
	done
done
chmod 444 "$tmp"/*
: >"$tmp/done"
rm -rf "$dir"
mv "$tmp" "$dir"
