# shellcheck shell=bash
# tests/integration/lib-p11.sh - a SoftHSM2 PKCS#11 token for the smartcard
# tests 140-p11-agent.t, 141-p11-dest.t, 142-p11-hostile.t.
# Source it after lib.sh.
#
# The token is SoftHSM2 (Debian softhsm2 2.6.1), a real PKCS#11 module that
# keeps its tokens in files: each test makes its own token in a directory
# under $T with its own softhsm2.conf, named by SOFTHSM2_CONF in the
# environment of whoever loads the module (ssh-add does not; the agent's
# PKCS#11 helper does, so the variable must be exported before the agent is
# started: p11_token does that).
#
#   P11_MODULE      the path a user gives ssh-add -s: /usr/lib/softhsm/
#                   libsofthsm2.so, a symlink into /usr/lib/<triplet>/softhsm
#   P11_REAL        its realpath (what the agent checks against -P)
#   P11_ALLOW       the -P pattern list allowing it: the resolved directory
#                   (ssh-agent matches the realpath, so "/usr/lib/softhsm/*"
#                   alone would refuse it), plus P11_MODULE_B's directory
#                   once p11_second has made it
#   P11_PIN         the user PIN of every token made here (4711)
#   P11_TYPES       the key types of a token: rsa2048 rsa3072 p256 p384 ed25519
#
#   p11_token DIR [PREFIX [TYPES...]]
#                   initialise a token (label "${PREFIX}token", SO PIN
#                   12345678, user PIN $P11_PIN) with its conf DIR/softhsm2.conf
#                   and token files under DIR/tokens, exported as
#                   SOFTHSM2_CONF; then for each TYPE (default $P11_TYPES) a
#                   key made with openssl, imported with softhsm2-util --import
#                   (PKCS#8 PEM; private and public object, CKA_LABEL
#                   PREFIX+TYPE, CKA_ID one byte, 01.. in order), and its
#                   public half written as $T/keys/PREFIX+TYPE.pub (OpenSSH
#                   format, comment = the label, as ssh-agent 9.2 lists it).
#                   PREFIX defaults to "p11-". No private key file is kept.
#                   Bails on failure.
#   p11_second DIR [PREFIX [TYPES...]]
#                   a second provider: a copy of the module at
#                   DIR/lib/libsofthsm2b.so patched to read its conf from
#                   SOFTHSM2_CONB instead of SOFTHSM2_CONF (the one string
#                   changed, same length), and a token for it made as
#                   p11_token does (default prefix "p11b-", types p256
#                   rsa2048), exported as SOFTHSM2_CONB. Sets P11_MODULE_B and
#                   adds DIR/lib/* to P11_ALLOW. The two providers see
#                   different tokens, so their keys differ.
#   p11_name TYPE [PREFIX]  the key name (PREFIX+TYPE, default prefix p11-)
#   p11_pub NAME    $T/keys/NAME.pub
#   p11_agent [args]     start_agent -P "$P11_ALLOW" [args] (bails on failure)
#   p11_agent_fg [args]  the same in the foreground (log in $T/agent.log)
#   p11_add [ssh-add options] [MODULE]
#                   ssh-add OPTIONS -s MODULE (default $P11_MODULE; a last
#                   argument ending in .so is the module), stdin
#                   /dev/null: the PIN comes from askpass; $RC/$OUT/$ERR
#   p11_remove [MODULE]  ssh-add -e MODULE; $RC...
#   p11_askpass     writes $T/p11-askpass.sh, exported as SSH_ASKPASS with
#                   SSH_ASKPASS_REQUIRE=force and DISPLAY=:0. It logs each
#                   call as "KIND<TAB>PROMPT" to $T/askpass.log (KIND is
#                   $SSH_ASKPASS_PROMPT or "ask") and answers
#                     none (a notice): nothing
#                     confirm: as $T/confirm.mode says (yes | no | block)
#                     a prompt naming PKCS#11 or a PIN: $T/pin (initially
#                       $P11_PIN), after waiting for $T/pin.release when
#                       $T/pin.block exists
#                     any other prompt (lock passwords): $T/pass
#                   "block" and pin.block touch $T/askpass.waiting and wait
#                   (at most 30 s) for their release file.
#   askpass_calls KIND   how many calls of that kind were logged
#   p11_prompts     how many PIN (PKCS#11) prompts were logged
#   p11_listed NAME      the agent lists the key NAME (by fingerprint)
#   p11_has_ed25519      true when $AGENT is expected to list Ed25519 token
#                   keys: Debian's ssh-agent 9.2 (its ssh-pkcs11-helper)
#                   has no Ed25519 PKCS#11 support, keyward must have it

P11_MODULE=/usr/lib/softhsm/libsofthsm2.so
[ -e "$P11_MODULE" ] || bail "$P11_MODULE missing (apt-get install softhsm2)"
command -v softhsm2-util >/dev/null || bail "softhsm2-util missing (apt-get install softhsm2)"
command -v openssl >/dev/null || bail "openssl missing"
P11_REAL=$(realpath "$P11_MODULE")
P11_ALLOW="$(dirname "$P11_REAL")/*"
P11_PIN=4711
P11_SOPIN=12345678
P11_TYPES="rsa2048 rsa3072 p256 p384 ed25519"
P11_MODULE_B=""

p11_name() { printf '%s%s' "${2:-p11-}" "$1"; }
p11_pub() { printf '%s' "$T/keys/$1.pub"; }

# _p11_conf DIR: a softhsm2.conf keeping the tokens in DIR/tokens
_p11_conf() {
	mkdir -p "$1/tokens" || return 1
	chmod 700 "$1" "$1/tokens"
	cat >"$1/softhsm2.conf" <<EOF
directories.tokendir = $1/tokens
objectstore.backend = file
log.level = ERROR
slots.removable = false
EOF
}

# _p11_genkey TYPE PEM: a PKCS#8 PEM private key of that type (an RSA one
# from KW_KEY_CACHE while there is one: lib.sh, key_cached)
_p11_genkey() {
	local alg opts=() k
	case $1 in
	rsa*) if k=$(key_cached "${1#rsa}"); then
		(umask 077 && cp "$k.pem" "$2" && chmod 600 "$2") && return 0
	fi ;;
	esac
	case $1 in
	rsa*) alg=RSA opts=(-pkeyopt "rsa_keygen_bits:${1#rsa}") ;;
	p256) alg=EC opts=(-pkeyopt ec_paramgen_curve:P-256) ;;
	p384) alg=EC opts=(-pkeyopt ec_paramgen_curve:P-384) ;;
	p521) alg=EC opts=(-pkeyopt ec_paramgen_curve:P-521) ;;
	ed25519) alg=ED25519 ;;
	*) return 1 ;;
	esac
	(umask 077 && openssl genpkey -algorithm "$alg" "${opts[@]}" -out "$2") 2>/dev/null
}

# _p11_sshpub TYPE PEM LABEL OUT: the OpenSSH public key line. ssh-keygen
# 9.2 reads PEM RSA and ECDSA keys (-y) but not PKCS#8 Ed25519 ones: that
# blob is made here from the 32 bytes ending the DER SubjectPublicKeyInfo.
_p11_sshpub() {
	local type=$1 pem=$2 label=$3 out=$4 line
	if [ "$type" = ed25519 ]; then
		openssl pkey -in "$pem" -pubout -outform DER 2>/dev/null |
			perl -e 'use MIME::Base64; local $/; my $d = <STDIN>;
				length($d) == 44 or exit 1;
				my $b = pack("N", 11) . "ssh-ed25519" . pack("N", 32) . substr($d, 12);
				print "ssh-ed25519 ", encode_base64($b, ""), " $ARGV[0]\n";' "$label" >"$out"
	else
		line=$(ssh-keygen -y -f "$pem" 2>/dev/null) || return 1
		printf '%s %s\n' "$(printf '%s' "$line" | cut -d' ' -f1,2)" "$label" >"$out"
	fi
	[ -s "$out" ]
}

# _p11_make CONFVAR DIR PREFIX TYPES...: the token behind CONFVAR's conf
_p11_make() {
	local var=$1 dir=$2 prefix=$3; shift 3
	local conf=$dir/softhsm2.conf type name id=0 pem
	_p11_conf "$dir" || bail "p11: cannot make $dir"
	SOFTHSM2_CONF=$conf softhsm2-util --init-token --free --label "${prefix}token" \
		--so-pin "$P11_SOPIN" --pin "$P11_PIN" >"$dir/init.log" 2>&1 ||
		{ diag_file "$dir/init.log"; bail "softhsm2-util --init-token failed"; }
	for type in "$@"; do
		id=$((id + 1))
		name=$(p11_name "$type" "$prefix")
		pem=$dir/$name.pem
		_p11_genkey "$type" "$pem" || bail "openssl genpkey $type failed"
		SOFTHSM2_CONF=$conf softhsm2-util --import "$pem" --token "${prefix}token" \
			--label "$name" --id "$(printf '%02x' "$id")" --pin "$P11_PIN" \
			>"$dir/import.log" 2>&1 ||
			{ diag_file "$dir/import.log"; bail "softhsm2-util --import $name failed"; }
		_p11_sshpub "$type" "$pem" "$name" "$T/keys/$name.pub" ||
			bail "cannot write the OpenSSH public key of $name"
		rm -f "$pem"
	done
	export "$var=$conf"
}

p11_token() {
	local dir=$1 prefix=${2-p11-}
	if [ $# -gt 2 ]; then shift 2; else set -- $P11_TYPES; fi
	_p11_make SOFTHSM2_CONF "$dir" "$prefix" "$@"
}

p11_second() {
	local dir=$1 prefix=${2-p11b-}
	if [ $# -gt 2 ]; then shift 2; else set -- p256 rsa2048; fi
	mkdir -p "$dir/lib" || bail "p11: cannot make $dir/lib"
	perl -0777 -pe 's/SOFTHSM2_CONF\0/SOFTHSM2_CONB\0/ or die "no SOFTHSM2_CONF\n"' \
		"$P11_REAL" >"$dir/lib/libsofthsm2b.so" ||
		bail "cannot make the second module (patched copy of $P11_REAL)"
	chmod 755 "$dir/lib/libsofthsm2b.so"
	P11_MODULE_B=$(realpath "$dir/lib/libsofthsm2b.so")
	P11_ALLOW="$P11_ALLOW,$(dirname "$P11_MODULE_B")/*"
	_p11_make SOFTHSM2_CONB "$dir" "$prefix" "$@"
}

p11_agent() { token_agent "$P11_ALLOW" "$@"; }
p11_agent_fg() { token_agent_fg "$P11_ALLOW" "$@"; }

p11_add() {
	local mod=$P11_MODULE
	if [ $# -gt 0 ]; then
		case ${!#} in
		*.so) mod=${!#}; set -- "${@:1:$#-1}" ;;
		esac
	fi
	run ssh-add "$@" -s "$mod" </dev/null
}

p11_remove() { run ssh-add -e "${1:-$P11_MODULE}" </dev/null; }

p11_askpass() {
	token_askpass "$T/p11-askpass.sh" '*PKCS#11*|*PIN*'
	echo "$P11_PIN" >"$T/pin"
}

p11_prompts() { grep -cE "^ask"$'\t'".*(PKCS#11|PIN)" "$T/askpass.log" 2>/dev/null; }
p11_listed() { agent_has "$T/keys/$1.pub"; }
p11_has_ed25519() { is_keyward; }
