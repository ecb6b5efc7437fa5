#!/bin/bash
# tests/fuzz/mkcorpus.sh - regenerate the seed corpora in tests/fuzz/corpus/
# from real OpenSSH traffic. Run as root from the repository (it starts
# two sshd on 127.0.0.1, like the integration tests):
#
#   bash tests/fuzz/mkcorpus.sh [OUTDIR]      (default tests/fuzz/corpus)
#
# A recording relay sits between the OpenSSH tools and /usr/bin/ssh-agent
# and keeps every request and reply payload of every connection. ssh-add
# (all key types, certificates, -c, -t, -h destination constraints,
# -l/-L/-d/-D/-x/-X, -T), ssh-keygen -Y sign and logins through two hops
# with ssh -A (session-binds, forwarding ones included, and the
# publickey-hostbound requests ssh signs) make that traffic. Each harness
# then gets seeds in its own input format (see the head of each
# tests/fuzz/fuzz_*.c); the IPC datagrams of fuzz_msg are built here from
# the captured payloads with the layouts of wire/msg.c. fuzz_token's seeds
# (the token helper's request and reply, wire/token.c) are hand-made below.
# fuzz_pkcs11's seeds (the PKCS#11 helper's requests and replies,
# wire/pkcs11.c) are not made here: they are the datagrams of one real
# exchange with SoftHSM2, written by tests/tools/p11_drive -D DIR (a token
# as tests/integration/lib-p11.sh makes one; a wrong PIN, -S, every key).
#
# The keys are new on every run, so the files differ from run to run;
# commit a run only when the corpus should change.
set -u
OUTDIR=$(realpath -m "${1:-tests/fuzz/corpus}")
AGENT=/usr/bin/ssh-agent
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../integration/lib.sh"
. "$HERE/../integration/lib-dest.sh"

say() { printf 'mkcorpus: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# ------------------------------------------------------------ the relay
cat >"$T/relay.pl" <<'EOF'
# relay.pl LISTEN UPSTREAM DIR: one child per client; every framed payload
# goes to DIR/CCCC-SSS-c (client -> agent) or -a (agent -> client).
use strict; use warnings; use IO::Socket::UNIX; use IO::Select;
my ($listen, $up, $dir) = @ARGV;
unlink $listen;
my $srv = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $listen, Listen => 64)
	or die "relay: $listen: $!\n";
$SIG{CHLD} = 'IGNORE';
my $conn = 0;
while (1) {
	my $c = $srv->accept or next;
	$conn++;
	my $pid = fork;
	if (defined $pid && $pid == 0) { close $srv; relay($c, $conn); exit 0 }
	close $c;
}
sub put { my ($fh, $d) = @_; while (length $d) { my $w = syswrite($fh, $d); return unless $w; substr($d, 0, $w) = '' } }
sub relay {
	my ($c, $n) = @_;
	my $u = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $up) or return;
	my %buf = (c => '', a => '');
	my $seq = 0;
	my $sel = IO::Select->new($c, $u);
	while (1) {
		for my $fh ($sel->can_read) {
			my $d;
			my $r = sysread($fh, $d, 65536);
			return unless $r;
			my ($dst, $k) = $fh == $c ? ($u, 'c') : ($c, 'a');
			$buf{$k} .= $d;
			while (length($buf{$k}) >= 4) {
				my $l = unpack('N', $buf{$k});
				last if length($buf{$k}) < 4 + $l;
				my $p = substr($buf{$k}, 4, $l);
				substr($buf{$k}, 0, 4 + $l) = '';
				$seq++;
				open(my $o, '>', sprintf('%s/%04d-%03d-%s', $dir, $n, $seq, $k)) or die;
				binmode $o; print $o $p; close $o;
			}
			put($dst, $d);
		}
	}
}
EOF

# ------------------------------------------------------------ traffic
mkdir -p "$T/keys" "$T/hidden" "$T/rec" "$T/cert"
start_agent || die "ssh-agent did not start"
UPSTREAM=$SSH_AUTH_SOCK
perl "$T/relay.pl" "$T/relay.sock" "$UPSTREAM" "$T/rec" &
EXTRA_PIDS+=($!)
wait_for_socket "$T/relay.sock" 5 || die "relay did not start"
export SSH_AUTH_SOCK=$T/relay.sock

gen_key ed ed25519 && gen_key p256 ecdsa 256 && gen_key p384 ecdsa 384 &&
	gen_key p521 ecdsa 521 && gen_key rsa rsa 1024 && gen_key rsa2 rsa 2048 &&
	gen_key caed ed25519 && gen_key carsa rsa 1024 && gen_key cap256 ecdsa 256 &&
	gen_key hostkeyc ed25519 ||
	die "ssh-keygen failed"
k=$T/keys
# certificates: user certs by three kinds of CA, one with options
ssh-keygen -q -s "$k/caed" -I user-ed -n alice,bob "$k/ed.pub" &&
	ssh-keygen -q -s "$k/carsa" -t rsa-sha2-512 -I user-p384 -n alice "$k/p384.pub" &&
	ssh-keygen -q -s "$k/cap256" -I user-rsa -n carol -O force-command=/bin/true \
		-O source-address=127.0.0.1/32 -O no-pty "$k/rsa.pub" ||
	die "ssh-keygen -s failed"
# a host certificate, for the sshd "hostc"
ssh-keygen -q -s "$k/caed" -h -I hostc -n hostc "$k/hostkeyc.pub" || die "ssh-keygen -h failed"
# FIDO keys without a token (mk_sk_key, lib.sh): ssh-add and ssh-agent
# load and hold them (only signing needs the token), so their real ADD
# encodings are recorded.
mk_sk_key sked sk-ssh-ed25519@openssh.com ed &&
	mk_sk_key skp256 sk-ecdsa-sha2-nistp256@openssh.com p256 &&
	ssh-keygen -q -s "$k/caed" -I user-sked -n alice "$k/sked.pub" &&
	ssh-keygen -q -s "$k/cap256" -I user-skp256 -n bob "$k/skp256.pub" ||
	die "FIDO key files failed"

mk_script "$T/askpass" 'echo fuzz-pass'
export SSH_ASKPASS=$T/askpass SSH_ASKPASS_REQUIRE=force DISPLAY=:0

ssh-add -q "$k/ed" "$k/p256" "$k/p384" "$k/p521" "$k/rsa" "$k/rsa2" </dev/null
ssh-add -l >/dev/null; ssh-add -L >/dev/null
ssh-add -q -c -t 600 "$k/p256" </dev/null
ssh-add -q "$k/sked" "$k/skp256" </dev/null            # with their -cert.pub
ssh-add -q -S /usr/lib/x86_64-linux-gnu/libkwtest-sk.so -t 60 "$k/sked" </dev/null
ssh-keygen -Y sign -f "$k/sked.pub" -n file "$T/msg" >/dev/null 2>&1  # refused: no token
ssh-add -T "$k/ed.pub" "$k/p256.pub" "$k/rsa.pub" >/dev/null 2>&1
echo "data to sign" >"$T/msg"
ssh-keygen -Y sign -f "$k/ed.pub" -n file "$T/msg" >/dev/null 2>&1
ssh-keygen -Y sign -f "$k/rsa.pub" -n file "$T/msg" >/dev/null 2>&1
ssh-add -x </dev/null >/dev/null 2>&1; ssh-add -l >/dev/null 2>&1
ssh-add -X </dev/null >/dev/null 2>&1
ssh-add -d "$k/p521" >/dev/null 2>&1
ssh-add -D >/dev/null 2>&1
ssh-add -q "$k/ed" "$k/p384" "$k/rsa" </dev/null     # with their -cert.pub

# destination constraints and logins through two hops
SSHD_HOSTKEYS="ed25519 ecdsa" dest_hosts hosta hostb >/dev/null
cat "$k/ed.pub" "$k/p256.pub" >>"$T/authorized_keys"
# hostc shows a host certificate (and a plain key); known_hosts names its CA
SSHD_HOSTKEYS=ecdsa start_sshd hostc "HostKey $k/hostkeyc" \
	"HostCertificate $k/hostkeyc-cert.pub" || die "sshd hostc did not start"
echo "@cert-authority hostc $(cut -d' ' -f1,2 "$k/caed.pub")" >>"$T/known_hosts"
ssh-add -D >/dev/null 2>&1
ssh-add -q -H "$T/known_hosts" -h hosta -h "hosta>hostb" -h "alice@hostb" \
	-h "hosta>*@hostc" -h hostc "$k/ed" </dev/null || die "ssh-add -h failed"
ssh-add -q -H "$T/known_hosts" -h hostb -t 300 -c "$k/p256" </dev/null
hide_key ed
dest_ssh ed hosta >/dev/null 2>&1; say "login hosta: $DEST_RESULT"
dest_ssh ed hosta hostb >/dev/null 2>&1; say "login hosta>hostb: $DEST_RESULT"
dest_ssh -m list ed hosta >/dev/null 2>&1; say "list on hosta: $DEST_RESULT"
dest_ssh ed hostb >/dev/null 2>&1; say "login hostb (refused): $DEST_RESULT"
dest_ssh -o HostKeyAlgorithms=ssh-ed25519-cert-v01@openssh.com ed hostc >/dev/null 2>&1
say "login hostc, host certificate: $DEST_RESULT"
dest_ssh -o HostKeyAlgorithms=ssh-ed25519-cert-v01@openssh.com ed hosta hostc >/dev/null 2>&1
say "login hosta>hostc, host certificate: $DEST_RESULT"
unhide_key ed
sleep 0.5

# ------------------------------------------------------------ seeds
for p in "$k"/*.pub; do
	cut -d' ' -f2 "$p" | base64 -d >"$T/cert/$(basename "$p" .pub).blob"
done
perl - "$T/rec" "$T/cert" "$OUTDIR" <<'EOF' || die "splitting failed"
use strict; use warnings; use Digest::SHA qw(sha1_hex); use File::Path qw(make_path);
my ($rec, $blobs, $out) = @ARGV;
my %seen;
sub put {
	my ($h, $name, $data) = @_;
	my $id = "$h:" . sha1_hex($data);
	return if $seen{$id}++;
	make_path("$out/$h");
	my $f = "$out/$h/$name";
	my $i = 1;
	$f = "$out/$h/$name-" . ++$i while -e $f;
	open(my $o, '>', $f) or die "$f: $!"; binmode $o; print $o $data; close $o;
}
sub str { pack('N', length $_[0]) . $_[0] }
sub u8 { pack('C', $_[0]) }
sub u32 { pack('N', $_[0]) }
sub u64 { pack('NN', 0, $_[0]) }
sub hdr { pack('CNN', @_) }
# read one string from $$s at $$o
sub rs { my ($s, $o) = @_; die "short\n" if $$o + 4 > length $$s; my $l = unpack('N', substr($$s, $$o, 4)); die "short\n" if $$o + 4 + $l > length $$s; my $r = substr($$s, $$o + 4, $l); $$o += 4 + $l; $r }
# the public key blob of a private key encoding, as the monitor sends it
# in MSG_ADD: a certificate's blob, or the plain key's public fields
sub pub_of {
	my ($k) = @_; my $o = 0; my $t = rs(\$k, \$o);
	return rs(\$k, \$o) if $t =~ /-cert-v01\@openssh\.com$/;
	my @f = map { rs(\$k, \$o) } 1 .. ($t =~ /^sk-/ ? ($t =~ /ed25519/ ? 2 : 3) :
		$t eq 'ssh-ed25519' ? 1 : 2);
	@f[0, 1] = @f[1, 0] if $t eq 'ssh-rsa';          # n, e in the private form
	return join '', map { str($_) } $t, @f;
}
# strings after the type name in a private key encoding (doc/protocol.md §4.4)
my %nstr = ('ssh-ed25519' => 2, 'ecdsa-sha2-nistp256' => 3, 'ecdsa-sha2-nistp384' => 3,
	'ecdsa-sha2-nistp521' => 3, 'ssh-rsa' => 6,
	'ssh-ed25519-cert-v01@openssh.com' => 3, 'ecdsa-sha2-nistp256-cert-v01@openssh.com' => 2,
	'ecdsa-sha2-nistp384-cert-v01@openssh.com' => 2, 'ecdsa-sha2-nistp521-cert-v01@openssh.com' => 2,
	'ssh-rsa-cert-v01@openssh.com' => 5);
# FIDO keys (doc/protocol.md §4.4): strings, then the flags byte, then key handle and reserved
my %skstr = ('sk-ssh-ed25519@openssh.com' => 2, 'sk-ecdsa-sha2-nistp256@openssh.com' => 3,
	'sk-ssh-ed25519-cert-v01@openssh.com' => 3,
	'sk-ecdsa-sha2-nistp256-cert-v01@openssh.com' => 2);
my %typename = (9 => 'remove-all-rsa', 11 => 'list', 13 => 'sign', 17 => 'add', 18 => 'remove',
	19 => 'remove-all', 22 => 'lock', 23 => 'unlock', 25 => 'add-constrained', 27 => 'extension');

opendir(my $d, $rec) or die; my @files = sort grep { /-[ca]$/ } readdir $d; closedir $d;
my (%conn, @stream);
for my $f (@files) {
	my ($c, $s, $dir) = $f =~ /^(\d+)-(\d+)-([ca])$/ or next;
	open(my $i, '<', "$rec/$f") or die; binmode $i; local $/; my $p = <$i>; close $i;
	push @{$conn{$c}}, [$dir, $p];
}
# one request id for all, so equal messages make one seed
my $req = 1;
my (@dests, @signdata);
# public blobs from ssh-keygen (keys, user certificates)
opendir(my $bd, $blobs) or die;
for my $f (sort readdir $bd) {
	next unless $f =~ /^(.*)\.blob$/;
	open(my $i, '<', "$blobs/$f") or die; binmode $i; local $/; my $b = <$i>; close $i;
	put('fuzz_keys', "public-$1", $b);
}
closedir $bd;
for my $c (sort keys %conn) {
	my ($stream, @binds) = ('');
	for my $m (@{$conn{$c}}) {
		my ($dir, $p) = @$m;
		my $t = ord $p;
		my $body = substr($p, 1);
		if ($dir eq 'a') {
			# agent replies, as policy hands them to the monitor
			if ($t == 14) { put('fuzz_msg', 'r-signature', hdr(65, $req, 7) . $body) }
			elsif ($t == 12) {
				my $n = unpack('N', $body);
				put('fuzz_msg', 'r-identities', hdr(66, $req, 7) . u32($n) . str(substr($body, 4)));
				# the same as policy's list answer (monitor/listcache.c)
				put('fuzz_msg', 'list-cache', hdr(25, 0, 0) . u32(0) . u32(1) .
				    u32(0) . u32(0) . u8(1) . u32($n) . str(substr($body, 4)));
				put('fuzz_msg', 'listed', hdr(24, 0, 7) . u32(0) . u32(1) . u32($n));
			}
			elsif ($t == 6 || $t == 5) { put('fuzz_msg', 'r-status', hdr(64, $req, 7) . u8($t == 6 ? 0 : 1)) }
			next;
		}
		$stream .= str($p);
		my $name = $typename{$t} // "type$t";
		my $o = 0;
		eval {
			if ($t == 17 || $t == 25) {
				my $kt = rs(\$p, \(my $x = 1));
				$o = 1;
				if (exists $skstr{$kt}) {
					rs(\$p, \$o) for 0 .. $skstr{$kt};
					$o++;                   # flags
					rs(\$p, \$o) for 1 .. 2;
				} else {
					rs(\$p, \$o) for 0 .. $nstr{$kt};   # name + fields
				}
				my $key = substr($p, 1, $o - 1);
				my $comment = rs(\$p, \$o);
				my ($life, $lt, $conf, $hasd, $dest) = (0, 0, 0, 0, '');
				while ($o < length $p) {
					my $ct = ord substr($p, $o++, 1);
					if ($ct == 1) { $life = 1; $lt = unpack('N', substr($p, $o, 4)); $o += 4 }
					elsif ($ct == 2) { $conf = 1 }
					elsif ($ct == 255) {
						my $en = rs(\$p, \$o);
						my $ed = rs(\$p, \$o);
						if ($en eq 'restrict-destination-v00@openssh.com') { $hasd = 1; $dest = $ed }
					}
				}
				(my $short = $kt) =~ s/\@openssh\.com//;
				$name .= "-$short";
				put('fuzz_keys', "private-$short", $key);
				put('fuzz_msg', 'add', hdr(5, $req, 7) . str(pub_of($key)) . str($key) . str($comment) .
					u8($life) . u32($lt) . u8($conf) . u8($hasd) . str($dest) .
					u8(0) . str("") .          # no sk-provider
					u8(0) . u8(0) . str(""));  # no associated certificates
				if ($kt !~ /cert/) {
					put('fuzz_msg', 'kh-add', hdr(32, $req, 0) . u64($req) . str($key));
				}
				if ($hasd) { push @dests, $dest; put('fuzz_dest', 'dest-list', "\0" . $dest) }
			} elsif ($t == 13) {
				$o = 1;
				my $kb = rs(\$p, \$o); my $data = rs(\$p, \$o);
				put('fuzz_msg', 'sign', hdr(4, $req, 7) . $body);
				put('fuzz_msg', 'kh-sign', hdr(33, $req, 0) . u64(3) . u8(1) . str($data));
				put('fuzz_keys', 'public-from-sign', $kb);
				my $sl = length($data) >= 4 ? unpack('N', $data) : length $data;
				if (4 + $sl < length $data && ord(substr($data, 4 + $sl, 1)) == 50) {
					push @signdata, [$data, [@binds]];
					put('fuzz_dest', 'userauth', "\1" . $data);
				}
			} elsif ($t == 18) {
				put('fuzz_msg', 'remove', hdr(6, $req, 7) . $body);
				put('fuzz_keys', 'public-from-remove', rs(\$p, \(my $x = 1)));
			} elsif ($t == 22 || $t == 23) {
				put('fuzz_msg', $name, hdr($t == 22 ? 8 : 9, $req, 7) . $body);
			} elsif ($t == 27) {
				$o = 1;
				my $en = rs(\$p, \$o);
				$name = "ext-$en"; $name =~ s/\@openssh\.com//;
				if ($en eq 'session-bind@openssh.com') {
					my $b = substr($p, $o);
					push @binds, $b;
					put('fuzz_msg', 'bind', hdr(11, $req, 7) . $b);
				}
			} else {
				put('fuzz_msg', $name, hdr({ 11 => 3, 19 => 7, 9 => 7 }->{$t} // 3, $req, 7));
			}
		};
		put('fuzz_proto', $name, $p);
	}
	next if $stream eq '';
	# a connection's requests, as the monitor reads them, written 1 to
	# 2^17 bytes at a time (byte 0)
	put('fuzz_frames', "conn-$c", u8($c % 18) . $stream);
	put('fuzz_dest', "binds-conn-$c", "\3" . join('', @binds)) if @binds;
}
# the whole sign check: each destination list with each userauth request
# and the session-binds of its connection
for my $s (@signdata) {
	my ($data, $binds) = @$s;
	next unless @$binds;
	put('fuzz_dest', 'sign-check', "\4" . str($_) . str($data) . join('', @$binds)) for @dests;
}
EOF

# hand-made seeds for what the tools above never send
hexput() { mkdir -p "$OUTDIR/$1"; perl -e 'print pack("H*", $ARGV[0])' "$3" >"$OUTDIR/$1/$2"; }
hexput fuzz_proto ext-query 1b000000057175657279
hexput fuzz_proto remove-all-rsa 09
# keyward's own extension (CONSTRAINTS_EXTENSION, wire/agent.h) and its messages;
# r-inspect-2: two identities, one with rules (the body of wire/listing.h)
hexput fuzz_proto ext-inspect 1b00000017636f6e73747261696e7473406b6579776172642e646576
hexput fuzz_msg inspect 0d0000000100000007
hexput fuzz_msg r-inspect 4400000001000000070000000400000000
hexput fuzz_msg r-inspect-2 4400000001000000070000018900000002000000330000000b7373682d65643235353139000000201111111111111111111111111111111111111111111111111111111111111111000000056d656465610000000c5348413235363a6d65646561ffffffff000000000000000000000000000000000000000000330000000b7373682d656432353531390000002022222222222222222222222222222222222222222222222222222222222222220000000d70657273657573406172676f730000000e5348413235363a70657273657573000002580100000000010000000d5348413235363a7363796c6c61000000067363796c6c610000000200000000000000000000000000000000000000067363796c6c6100000002000000105348413235363a7363796c6c612d6361010000000c4d44353a30303a31313a32320000000000000000067363796c6c6100000001000000105348413235363a7363796c6c612d63610100000007706572736575730000000963686172796264697300000001000000105348413235363a63686172796264697300
# a type no process takes (0x7f): every decoder, the body and the name
# tables of wire/agent.h and keys/fphash.h included
hexput fuzz_msg inspect-body 7f000000010000000700000002000000330000000b7373682d65643235353139000000201111111111111111111111111111111111111111111111111111111111111111000000056d656465610000000c5348413235363a6d65646561ffffffff000000000000000000000000000000000000000000330000000b7373682d656432353531390000002022222222222222222222222222222222222222222222222222222222222222220000000d70657273657573406172676f730000000e5348413235363a70657273657573000002580100000000010000000d5348413235363a7363796c6c61000000067363796c6c610000000200000000000000000000000000000000000000067363796c6c6100000002000000105348413235363a7363796c6c612d6361010000000c4d44353a30303a31313a32320000000000000000067363796c6c6100000001000000105348413235363a7363796c6c612d63610100000007706572736575730000000963686172796264697300000001000000105348413235363a63686172796264697300
hexput fuzz_msg ext-query 7f00000001000000077175657279
hexput fuzz_msg ext-session-bind 7f000000010000000773657373696f6e2d62696e64406f70656e7373682e636f6d
hexput fuzz_msg ext-inspect 7f0000000100000007636f6e73747261696e7473406b6579776172642e646576
hexput fuzz_msg fp-sha256 7f0000000100000007736861323536
hexput fuzz_msg fp-md5 7f00000001000000076d6435
hexput fuzz_msg fp-SHA512 7f0000000100000007534841353132
hexput fuzz_msg audit 3800000000000000000000001a7b226576656e74223a227369676e222c226f6b223a747275657d
hexput fuzz_proto smartcard 14000000036c69620000000370696e
hexput fuzz_proto ext-bind-truncated 1b0000001873657373696f6e2d62696e64406f70656e7373682e636f6d00000000
# replies as the monitor gets them from policy
hexput fuzz_proto reply-status 40000000010000000700
hexput fuzz_proto reply-extensions 4300000001000000070000004d0000000571756572790000001873657373696f6e2d62696e64406f70656e7373682e636f6d0000002472657374726963742d64657374696e6174696f6e2d763030406f70656e7373682e636f6d
hexput fuzz_msg open 010000000100000007000003e80000123400000001
hexput fuzz_msg close 020000000100000007
hexput fuzz_msg list-stale 1a0000000000000000
hexput fuzz_msg list-cache-empty 19000000000000000000000000000000020000000000000000000000000000000000
hexput fuzz_msg list-cache-until 190000000000000000000000000000000700000000075bcd15000000000100000048000000330000000b7373682d656432353531390000002011111111111111111111111111111111111111111111111111111111111111110000000d70657273657573406172676f73
hexput fuzz_msg query 0a0000000100000007
hexput fuzz_msg bind-bad 0c0000000100000007
hexput fuzz_msg kh-delete 220000000100000000000000000000002a
hexput fuzz_msg kh-wipe 230000000100000000
hexput fuzz_msg prompt 30000000010000000000000011416c6c6f7720757365206f66206b65793f
hexput fuzz_msg prompt-cancel 310000000100000000
hexput fuzz_msg r-status-ext-fail 40000000010000000702
hexput fuzz_msg r-extensions 4300000001000000070000004d0000000571756572790000001873657373696f6e2d62696e64406f70656e7373682e636f6d0000002472657374726963742d64657374696e6174696f6e2d763030406f70656e7373682e636f6d
hexput fuzz_msg unknown-type 7f00000001000000070000000100
# one seed for each message of wire/monitor.h, keyholder.h, prompter.h,
# broker.h that the tools above never send; ext-policy-*: wire/agent.c's
# answer frame and POLICY_EXTENSION arguments (type 0x7f: every decoder)
hexput fuzz_msg p11-remove 0f0000000100000007000000302f7573722f6c69622f7838365f36342d6c696e75782d676e752f736f667468736d2f6c6962736f667468736d322e736f
hexput fuzz_msg peer 1000000000000000070000000400000000
hexput fuzz_msg policy-load 110000000100000007000000146b657920706572736575730a2020616c6c6f770a
hexput fuzz_msg policy-show 120000000100000007
hexput fuzz_msg conns 130000000100000007
hexput fuzz_msg kh-lock 240000000100000000000000056d65646561
hexput fuzz_msg kh-unlock 250000000100000000000000056d65646561
hexput fuzz_msg prompt-secret 3200000001000000000000001250494e20666f722074686520746f6b656e3f
hexput fuzz_msg r-secret 46000000010000000000000006313233343536
hexput fuzz_msg r-path 470000000100000000000000282f7573722f6c69622f7838365f36342d6c696e75782d676e752f6c6962736b2d64756d6d792e736f
hexput fuzz_msg r-token 48000000010000000000000003000102
hexput fuzz_msg r-token-fail 49000000010000000003
hexput fuzz_msg r-p11-gone 4a00000000000000000000001f2f7573722f6c69622f736f667468736d2f6c6962736f667468736d322e736f
hexput fuzz_msg r-pubkey 4d0000000100000000000000330000000b7373682d65643235353139000000201111111111111111111111111111111111111111111111111111111111111111
hexput fuzz_msg tk-resolve 60000000010000000700000008696e7465726e616c
hexput fuzz_msg tk-sign 61000000010000000700000008696e7465726e616c000000080172657175657374
hexput fuzz_msg tk-cancel 620000000100000007
hexput fuzz_msg tk-p11-start 6300000001000000070000001f2f7573722f6c69622f736f667468736d2f6c6962736f667468736d322e736f00000006016c6f67696e
hexput fuzz_msg tk-p11-sign 6400000001000000070000001f2f7573722f6c69622f736f667468736d2f6c6962736f667468736d322e736f00000005027369676e
hexput fuzz_msg tk-p11-stop 6500000000000000000000001f2f7573722f6c69622f736f667468736d2f6c6962736f667468736d322e736f
hexput fuzz_msg ext-policy-answer 7f00000001000000071d00000012706f6c696379406b6579776172642e646576000000066b6579206b0a
hexput fuzz_msg ext-policy-args 7f0000000100000007000000046c6f6164000000066b6579206b0a
# FIDO signatures (doc/protocol.md §4.6) as a token's answer becomes them, valid for the
# fixed keys and data of fuzz_keys.c (no token signs for ssh-agent here)
hexput fuzz_keys sksig-ed25519 0000001a736b2d7373682d65643235353139406f70656e7373682e636f6d00000040f617dad6d59bb867ba60eecfd1d70ba37eaa1d4b086ebf16f6290e114e57bbf7640e054828b9d2f5d697c0f6bae068c45fec23237e2c8d92fcdc9e50446bb70d0100000007
hexput fuzz_keys sksig-ecdsa 00000022736b2d65636473612d736861322d6e69737470323536406f70656e7373682e636f6d00000048000000205b4bd03cd276c2439ce98e80a40c3d9d26561882c853b8e440691e0f6f40c74b0000002006a70f64d50ab0ffb3879ec719b07fa7e048e08448f012d65b826c653d58d7510501020304
# a FIDO key's material: policy's request, the keyholder's answer
hexput fuzz_msg kh-sk-material 260000000100000000000000000000002a
hexput fuzz_msg r-sk-material 45000000010000000001000000047373683a0100000030404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f
# wmatch: subject NUL pattern
for s in 'hostb%host?' 'alice%a*e' 'a.example.org%*.example.org' 'aaaaaaaaaaaaaaaa%*a*a*a*a*a*b' \
	'x%' '%*' 'scylla%s*y?la*' '*?%*?'; do
	mkdir -p "$OUTDIR/fuzz_dest"
	printf '\2%s' "$s" | tr '%' '\0' >"$OUTDIR/fuzz_dest/wmatch-$(printf %s "$s" | md5sum | cut -c1-8)"
done
# frames: compact records (length, fill): one of 256 KiB, one too long,
# a zero length; and a raw stream with a zero-length frame
hexput fuzz_frames compact-max 8c0004000041000000010b
hexput fuzz_frames compact-over 8d0004000142
hexput fuzz_frames compact-zero 81000000010b0000000000
hexput fuzz_frames raw-zero 00000000010b00000000
hexput fuzz_frames raw-partial 0c000000100b0000
# token helper (wire/token.h; the first byte is fuzz_token's mode): requests
# as policy sends them, replies as keyward-sk sends them
hexput fuzz_token rep-ecdsa 0102000000000500000007000000207f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f7f0000001f01222222222222222222222222222222222222222222222222222222222222
hexput fuzz_token rep-ed25519 020200000000010000002a000000401111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111100000000
hexput fuzz_token rep-no-device 0102fffffffc00000000000000000000000000
hexput fuzz_token rep-pin-required 0202fffffffd00000000000000000000000000
hexput fuzz_token rep-refused 0202ffffffff00000000000000000000000000
hexput fuzz_token req-ecdsa-pin 000100000000000000047373683a05000000494b57534b54455354015a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a33333333333333333333333333333333333333333333333333333333333333330000003c0000001073657373696f6e2d69642d627974657332000000036769740000000e7373682d636f6e6e656374696f6e000000097075626c69636b65790100000006313233343536
hexput fuzz_token req-ed25519 000100000001000000047373683a01000000494b57534b54455354015a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a33333333333333333333333333333333333333333333333333333333333333330000003c0000001073657373696f6e2d69642d627974657332000000036769740000000e7373682d636f6e6e656374696f6e000000097075626c69636b65790100000000
hexput fuzz_token req-no-touch 000100000001000000087373683a776f726b00000000494b57534b54455354015a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a3333333333333333333333333333333333333333333333333333333333333333000000017800000000
hexput fuzz_token req-web-origin 0001000000000000001368747470733a2f2f6578616d706c652e636f6d0100000040010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010101010000000000000000
say "corpus in $OUTDIR:"
du -s --apparent-size -B1 "$OUTDIR"/* >&2
