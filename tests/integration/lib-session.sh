# tests/integration/lib-session.sh - a real D-Bus for the session watch
# (keyward(1), SESSION WATCH), sourced after lib.sh by 18x-session-*.t.
#
#   session_deps             bails unless dbus-daemon, gdbus and python3's
#                            dbusmock are there (make deps installs them)
#   session_sysbus           a private system-type dbus-daemon with
#                            python3-dbusmock's logind template on it, and
#                            session c1 of the user running the test;
#                            sets SYSBUS (its address), S1 (c1's path)
#   lcall OBJECT METHOD ARGS...   a call to the mock logind
#   emit SIGNAL SIG ARGS          a Manager signal from the mock
#   session_sessbus          a private session bus with dbusmock's
#                            notification_daemon; sets SESSBUS
#   notices                  the Notify calls that mock got, each
#                            "APP|SUMMARY|BODY" and a NUL
#   nnotices [PREFIX]        how many of them keyward sent ("keyward|"
#                            and PREFIX begin the line)
#   logsays TEXT             waits until the agent's log ($T/agent.log)
#                            holds TEXT
#   count RE                 how many lines of the agent's log match RE
LOGIND=/org/freedesktop/login1

session_deps() {
	if ! command -v dbus-daemon >/dev/null || ! command -v gdbus >/dev/null ||
	    ! "$PY3" -c 'import dbusmock' 2>/dev/null; then
		bail "dbus-daemon, gdbus or python3-dbusmock missing (make deps)"
	fi
}

# busconf FILE SOCKET TYPE: a bus of TYPE on SOCKET that lets the mock
# own its name and anyone call it
busconf() {
	cat >"$1" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>$3</type>
  <listen>unix:path=$2</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
}

# _bus NAME TYPE: a dbus-daemon; prints its address
_bus() {
	busconf "$T/$1.conf" "$T/$1" "$2"
	dbus-daemon --config-file="$T/$1.conf" --nofork --print-address=3 \
		3>"$T/$1.addr" 2>"$T/$1.err" &
	EXTRA_PIDS+=($!)
	poll_until 10 test -s "$T/$1.addr" || bail "dbus-daemon ($1) did not start"
}

lcall() {
	local obj=$1 m=$2; shift 2
	timeout 10 gdbus call --address "$SYSBUS" --dest org.freedesktop.login1 \
		--object-path "$obj" --method "$m" "$@"
}

emit() {
	lcall $LOGIND org.freedesktop.DBus.Mock.EmitSignal \
		org.freedesktop.login1.Manager "$1" "$2" "$3" >/dev/null
}

session_sysbus() {
	_bus sysbus system
	SYSBUS=$(head -n1 "$T/sysbus.addr")
	DBUS_SYSTEM_BUS_ADDRESS=$SYSBUS "$PY3" -m dbusmock --system -t logind \
		>"$T/mock.log" 2>&1 &
	EXTRA_PIDS+=($!)
	poll_until 10 lcall $LOGIND org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1 ||
		bail "dbusmock logind did not start"
	lcall $LOGIND org.freedesktop.DBus.Mock.AddSession c1 seat0 "$(id -u)" \
		"$(id -un)" true >/dev/null || bail "mock logind: no session c1"
	S1=$LOGIND/session/c1
}

ncall() {
	timeout 10 gdbus call --address "$SESSBUS" --dest org.freedesktop.Notifications \
		--object-path /org/freedesktop/Notifications --method "$@"
}

session_sessbus() {
	_bus sessbus session
	SESSBUS=$(head -n1 "$T/sessbus.addr")
	DBUS_SESSION_BUS_ADDRESS=$SESSBUS "$PY3" -m dbusmock --session \
		-t notification_daemon >"$T/nmock.log" 2>&1 &
	EXTRA_PIDS+=($!)
	poll_until 10 ncall org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1 ||
		bail "dbusmock notification_daemon did not start"
}

notices() {
	DBUS_SESSION_BUS_ADDRESS=$SESSBUS "$PY3" -c '
import dbus, sys
b = dbus.SessionBus()
o = b.get_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
for t, m, a in o.GetCalls(dbus_interface="org.freedesktop.DBus.Mock"):
    if m == "Notify":
        sys.stdout.write("%s|%s|%s\0" % (a[0], a[3], a[4]))
'
}
nnotices() { notices | tr '\0' '\n' | grep -c "^keyward|${1:-}"; }

logsays() { poll_until 10 grep -qF -- "$1" "$T/agent.log"; }
count() { grep -c -- "$1" "$T/agent.log"; }
