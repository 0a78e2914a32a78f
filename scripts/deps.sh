#!/bin/sh
# Installs what argus needs on Debian (apt-get, as root), or says what to
# install. `deps.sh` covers the build and the tests; `deps.sh check` adds
# what `make check` needs (clang with libFuzzer and the sanitizers), `deps.sh
# live` the programs the real scenarios record (make live).
set -e

need_pkgs=""
want() { need_pkgs="$need_pkgs $1"; }
have_header() { [ -f "/usr/include/$1" ] || [ -f "/usr/local/include/$1" ]; }

command -v cc >/dev/null 2>&1 || want gcc
command -v make >/dev/null 2>&1 || want make
command -v ar >/dev/null 2>&1 || want binutils
have_header cbor.h || want libcbor-dev
have_header xxhash.h || want libxxhash-dev
have_header yajl/yajl_parse.h || want libyajl-dev
# compressed traces (DEC-COMPRESSED): zlib and libzstd decompress them as they
# are read; tests/decode-compressed.bats makes zstd files with the zstd program
have_header zlib.h || want zlib1g-dev
have_header zstd.h || want libzstd-dev
command -v zstd >/dev/null 2>&1 || want zstd
command -v xz >/dev/null 2>&1 || want xz-utils
# trace-cmd's trace.dat (argus-decode --format tracedat): libtracecmd reads the
# file, libtraceevent renders its events (libtracecmd.pc needs libtracefs), its
# plugins as trace-cmd report renders them (sched_switch, futex, hrtimer, ...)
have_header trace-cmd/trace-cmd.h || want libtracecmd-dev
have_header traceevent/event-parse.h || want libtraceevent-dev
have_header tracefs/tracefs.h || want libtracefs-dev
ls /usr/lib/*/traceevent/plugins/plugin_sched_switch.so >/dev/null 2>&1 ||
    want libtraceevent1-plugin
# Perfetto traces (argus-decode --format perfetto): zlib (above) inflates
# their compressed packets; the rest is argus' own protobuf reader.
# CTF traces (argus-decode --format ctf, LTTng and perf's): libbabeltrace2
# reads them; its ctf and utils plugins (source.ctf.fs, filter.utils.muxer)
# come with the library package, libbabeltrace2-0
have_header babeltrace2/babeltrace.h || want libbabeltrace2-dev
ls /usr/lib/*/babeltrace2/plugins/babeltrace-plugin-ctf.so >/dev/null 2>&1 ||
    want libbabeltrace2-0
command -v bats >/dev/null 2>&1 || want bats
[ -f /usr/lib/bats/bats-support/load.bash ] || want bats-support
[ -f /usr/lib/bats/bats-assert/load.bash ] || want bats-assert
command -v jq >/dev/null 2>&1 || want jq
command -v dot >/dev/null 2>&1 || want graphviz   # tests/export.bats renders the DOT
command -v chromium >/dev/null 2>&1 || want chromium  # tests/html.bats opens the page
command -v xxhsum >/dev/null 2>&1 || want xxhash
/usr/bin/python3 -c 'import cbor2' >/dev/null 2>&1 || want python3-cbor2
command -v help2man >/dev/null 2>&1 || want help2man     # make install: the man pages
command -v pkg-config >/dev/null 2>&1 || want pkg-config # tests/front.bats: the library's example

# make live: the programs the real scenarios record (tests/live/README.md)
if [ "${1-}" = live ]; then
    for c in redis-server:redis-server redis-cli:redis-tools stress-ng:stress-ng \
             curl:curl sqlite3:sqlite3 psql:postgresql-client-15 xz:xz-utils \
             Xvfb:xvfb xdotool:xdotool xclip:xclip dbus-daemon:dbus-daemon dbus-send:dbus-bin \
             flock:util-linux setpriv:util-linux pgrep:procps dig:bind9-dnsutils \
             tinyproxy:tinyproxy inotifywait:inotify-tools \
             perf:linux-perf; do  # perf: tests/live/perf.bats records a perf.data
        command -v "${c%%:*}" >/dev/null 2>&1 || want "${c#*:}"
    done
    [ -d /usr/lib/postgresql ] || want postgresql-15
    /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0")' >/dev/null 2>&1 ||
        want "python3-gi gir1.2-gtk-3.0"
    /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "4.0")' >/dev/null 2>&1 ||
        want gir1.2-gtk-4.0
    /usr/bin/python3 -c 'import tkinter' >/dev/null 2>&1 || want python3-tk
    /usr/bin/python3 -c 'import pygame' >/dev/null 2>&1 || want python3-pygame
    /usr/bin/python3 -c 'import Xlib' >/dev/null 2>&1 || want python3-xlib
    /usr/bin/python3 -c 'import fuse' >/dev/null 2>&1 || want python3-fusepy
    /usr/bin/python3 -c 'from PyQt5 import QtDBus, QtWidgets' >/dev/null 2>&1 ||
        want python3-pyqt5
fi

if [ "${1-}" = check ]; then
    command -v clang >/dev/null 2>&1 || want clang
    ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a \
        >/dev/null 2>&1 || want libclang-rt-dev
fi

[ -n "$need_pkgs" ] || exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$need_pkgs"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $need_pkgs >/dev/null
else
    echo "deps: missing:$need_pkgs" >&2
    echo "deps: install them (Debian: sudo apt-get install$need_pkgs) and run again" >&2
    exit 1
fi
