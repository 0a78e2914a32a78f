#!/bin/bash
# dbus-send: `dbus-send --print-reply` (dbus-bin, libdbus) calls the slow
# GDBus service (python3-gi, slow-dbus-svc) on a private session
# dbus-daemon; its method sleeps 2 s on the service's main thread before it
# replies (normal run: Delay(0)). A command-line client of D-Bus through
# libdbus, where gui-dbus is a GTK app through GDBus and qt-dbus a Qt app
# through QtDBus.
# Truth: fixtures/real/dbus-send/truth.
. "$(dirname "$0")/lib.sh"
need_root
need dbus-daemon:dbus-daemon dbus-send:dbus-bin
/usr/bin/python3 -c 'from gi.repository import Gio' 2>/dev/null ||
    skip "needs GLib for python, for the service (apt-get install python3-gi)"
desktop_env
start_slow_dbus_service
service=$SERVICE_PID

call() {
    record "$1" dbus-send --session --print-reply --reply-timeout=10000 --dest=org.argus.Slow \
        /org/argus/Slow org.argus.Slow.Delay "double:$2"
}
call normal 0
call hang 2

truth proc dbus-send
truth hang "$RECORDED_PID dbus-send/main"
truth culprit "$service slow-dbus-svc/main"
truth ending timeout
truth why "the service's main thread slept 2 s in its D-Bus method handler before it replied, while dbus-send waited for the reply through dbus-daemon"
