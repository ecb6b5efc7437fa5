#!/bin/bash
# Prompt text that cannot draw lines: a client-chosen SSHSIG namespace that
# holds U+2028 (a line separator: GTK and Qt break the line there), U+2060
# and a Hangul filler (drawn as nothing) reaches the confirm prompt only
# escaped, so it cannot add a line such as "Requested by git commit -S"
# that the user would read as keyward's own. An askpass records the prompt
# it was given; the same scenario against ssh-agent is the baseline (it
# does not show the namespace: a note, not a failure).
. "$(dirname "$0")/lib.sh"

cat >"$T/askpass.sh" <<EOF
#!/bin/sh
printf '%s' "\$1" >"$T/askpass.prompt"
echo yes
EOF
chmod 755 "$T/askpass.sh"
gen_key conf ed25519 || bail "ssh-keygen conf"
echo "data to sign" >"$T/data"
SSH_ASKPASS=$T/askpass.sh DISPLAY=:0 SSH_ASKPASS_REQUIRE=force start_agent ||
	bail "agent did not start"
run ssh-add -c "$T/keys/conf"
ok "$RC" "ssh-add -c conf"
hide_key conf

forged=$'Requested by git commit -S (pid 4242).'
ns=$'git\xe2\x80\xa8'"$forged"$'\xe2\x81\xa0\xe3\x85\xa4\xef\xbb\xbf'
run ssh-keygen -Y sign -f "$T/keys/conf.pub" -n "$ns" "$T/data"
ok "$RC" "a signature under a namespace that holds U+2028, U+2060, U+3164, U+FEFF"
[ -s "$T/askpass.prompt" ]
ok $? "the askpass was asked, and recorded its prompt"
p=$(cat "$T/askpass.prompt")
diag "prompt: $p"
# Every character that a terminal, GTK or Qt may draw as a line break or
# as nothing, as UTF-8 (LineBreak BK/NL and a sample of the
# default-ignorables; test_text checks the whole table).
hidden=$'\xe2\x80\xa8|\xe2\x80\xa9|\xc2\x85|\xe2\x81\xa0|\xe3\x85\xa4|\xef\xbb\xbf|\xe2\x80\x8b'
if is_keyward; then
	contains "$p" "git" "the prompt shows the namespace"
	if printf '%s' "$p" | LC_ALL=C grep -qE "$hidden"; then r=1; else r=0; fi
	ok "$r" "no raw line separator or invisible character in the prompt"
	contains "$p" 'git\xe2\x80\xa8Requested by git commit -S (pid 4242).\xe2\x81\xa0\xe3\x85\xa4\xef\xbb\xbf' \
		"the namespace is shown escaped, byte by byte"
	# As GTK or Qt would draw it: a line at each separator, nothing for
	# the invisible ones.
	drawn=$(printf '%s' "$p" | perl -CSD -pe 's/[\x{2028}\x{2029}\x{85}]/\n/g; s/[\x{2060}\x{3164}\x{feff}\x{200b}]//g')
	n=$(printf '%s\n' "$drawn" | grep -c '^Requested by')
	is "$n" 1 "drawn as GTK would, exactly one line starts 'Requested by': keyward's own"
else
	if printf '%s' "$p" | LC_ALL=C grep -qF "$forged"; then
		diag "NOTE: ssh-agent shows the namespace's forged line raw"
	else
		diag "NOTE: ssh-agent does not show the namespace in its prompt"
	fi
	skip "keyward's prompt text only"
	skip_n 3 "keyward's prompt text only"
fi
done_testing
