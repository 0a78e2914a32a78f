# tests/live/scenarios/lib.sh: what every scenario script shares. Sourced
# by tests/live/scenarios/NAME.sh (see tests/live/README.md, "The real
# corpus"). A scenario script is run as
#
#     tests/live/scenarios/NAME.sh OUTDIR
#
# and records OUTDIR/hang.txt (the hang) and OUTDIR/normal.txt (the same
# action when it does not hang) with argus-record, as root. Exit 0 when
# both are recorded, 77 when it cannot run here (the reason on stderr:
# not root, no tracefs, a program missing), anything else when it failed.
#
# Rules every scenario keeps: network only on 127.0.0.1; every wait
# bounded in time (wait_for); every process it starts is started with
# spawn and ended by its pid (stop, and the EXIT trap); files only under
# $WORK (removed at the end) and OUTDIR.

set -eu -o pipefail

SCENARIO=$(basename "$0" .sh)
OUT=${1:?usage: $0 OUTDIR}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/argus-$SCENARIO.XXXXXX")

# $WORK/busy.py: compute(SECONDS), the apps' busy work: arithmetic until
# the deadline; the clock is read through the vDSO, so it makes no system
# call (from busy import compute, with $WORK on sys.path)
cat > "$WORK/busy.py" <<'EOF'
import time
def compute(seconds):
    end = time.perf_counter() + seconds
    n = 1
    while time.perf_counter() < end:
        for i in range(1000):
            n = (n * 48271 + i) % 2147483647
    return n
EOF

# $WORK/child.py: wait_for_child(SECONDS, PIDFILE), the dialog apps' work
# after the answer: `sleep SECONDS` as a child, its pid to PIDFILE, waited
# for (from child import wait_for_child: $WORK is the app's folder)
cat > "$WORK/child.py" <<'EOF'
import subprocess
def wait_for_child(seconds, pidfile):
    child = subprocess.Popen(["sleep", str(seconds)])
    with open(pidfile, "w") as f:
        f.write("%d\n" % child.pid)
    child.wait()
EOF

say() { echo "$SCENARIO: $*" >&2; }

# skip REASON: this machine cannot record the scenario (exit 77).
skip() {
    say "skipped: $*"
    exit 77
}

. "$(dirname "${BASH_SOURCE[0]}")/../procs.sh"

cleanup() {
    local status=$?
    set +e
    stop_spawned
    rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# need_root: root and tracefs, and argus-record on PATH.
need_root() {
    [ "$(id -u)" = 0 ] || skip "recording with tracefs needs root"
    grep -qw tracefs /proc/filesystems || skip "this kernel has no tracefs"
    command -v argus-record >/dev/null || skip "argus-record is not on PATH (make; PATH=\$PWD/bin:\$PATH)"
}

# need CMD[:PACKAGE]...: each command must exist (else skip, naming the
# Debian package to install).
need() {
    local c
    for c in "$@"; do
        command -v "${c%%:*}" >/dev/null 2>&1 ||
            skip "needs ${c%%:*} (apt-get install ${c#*:})"
    done
}

# need_python_gtk3: Debian's python3 with GTK 3's bindings, as $py.
need_python_gtk3() {
    py=/usr/bin/python3
    [ -x $py ] || skip "needs $py (apt-get install python3)"
    $py -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
        skip "needs GTK 3 for python (apt-get install python3-gi gir1.2-gtk-3.0)"
}

# need_python_tk: Debian's python3 with Tk's bindings, as $py.
need_python_tk() {
    py=/usr/bin/python3
    [ -x $py ] || skip "needs $py (apt-get install python3)"
    $py -c 'import tkinter' 2>/dev/null || skip "needs Tk for python (apt-get install python3-tk)"
}

# free_port: a TCP port nothing listens on, on 127.0.0.1.
free_port() {
    local p
    for p in $(seq 20000 20999 | shuf); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# record NAME CMD...: records OUTDIR/NAME.txt with argus-record while CMD
# runs; CMD's pid (its main thread's tid) is then in $RECORDED_PID.
# Recordings are system-wide: one at a time on this machine (a lock
# shared by every scenario), so that no other scenario's programs are in
# the trace. RECORD_OPTS adds argus-record options (a smaller
# --buffer-mb, a --duration, an --event). LOAD_CPU=N loads the machine:
# stress-ng --cpu N (nice 0, unpinned) runs from 1 s before each recording
# to its end (the NAME-loaded scenarios; its pid in $LOAD_PID meanwhile,
# its workers' pids, stress-ng-cpu, in $LOAD_WORKERS). LOAD_COMPILE=N
# compiles meanwhile too: N loops of GCC's compiler proper (cc1 -O2, a
# generated C file of 150 functions, about 1 s each: a compiler process
# started every second or so, as in a make -jN).
record() {
    local name=$1 status=0
    shift
    exec 9>"${TMPDIR:-/tmp}/argus-live.lock"
    flock -w 1200 9 || { say "another recording held the lock for 20 minutes"; exit 1; }
    start_load
    # CMD tells its pid through a shell that execs it (the pid stays)
    # shellcheck disable=SC2016,SC2086  # $$ is the inner shell's; RECORD_OPTS is a list of words
    argus-record -q --buffer-mb 32 ${RECORD_OPTS:-} -o "$OUT/$name.txt" -- \
        sh -c 'echo $$ > "$0"; exec "$@"' "$WORK/$name.pid" "$@" || status=$?
    stop_load
    flock -u 9
    exec 9>&-
    [ $status = 0 ] || { say "argus-record of the $name run exited $status"; exit 1; }
    RECORDED_PID=$(cat "$WORK/$name.pid")
}

# start_load: LOAD_CPU and LOAD_COMPILE's load (see record), from 1 s
# before what it loads; stop_load ends it.
start_load() {
    LOAD_PID=
    LOAD_COMPILERS=()
    if [ -n "${LOAD_CPU:-}" ]; then
        command -v stress-ng >/dev/null || skip "needs stress-ng (apt-get install stress-ng)"
        spawn stress-ng --cpu "$LOAD_CPU" --timeout 120 -q
        LOAD_PID=$SPAWNED_PID
        sleep 1
        LOAD_WORKERS=$(pgrep -P "$LOAD_PID" | tr '\n' ' ')
    fi
    local i
    if [ -n "${LOAD_COMPILE:-}" ]; then
        command -v gcc >/dev/null || skip "needs gcc (apt-get install gcc)"
        compile_loop > "$WORK/compile-loop.sh"
        for i in $(seq "$LOAD_COMPILE"); do
            spawn bash "$WORK/compile-loop.sh" "$(gcc -print-prog-name=cc1)" "$WORK/load$i.c"
            LOAD_COMPILERS+=("$SPAWNED_PID")
        done
        sleep 1
    fi
}

stop_load() {
    [ -z "$LOAD_PID" ] || stop "$LOAD_PID"
    [ ${#LOAD_COMPILERS[@]} = 0 ] || stop "${LOAD_COMPILERS[@]}"
}

# compile_loop: the script of one LOAD_COMPILE loop (bash SCRIPT CC1 FILE):
# writes FILE, a C file of 150 functions, then compiles it with CC1 -O2
# again and again (2 minutes at most); on SIGTERM it ends the compiler it
# waits for, by its pid, then itself.
compile_loop() {
    cat <<'LOOP'
cc1=$1 src=$2
python3 -c '
for i in range(150):
    print("int f%d(int *a, int n) { int s = %d; for (int i = 0; i < n; i++) { s += a[i] * %d ^ (s >> 3); if (s & 1) s -= a[(i + %d) %% n]; } return s; }" % (i, i, i % 7 + 1, i % 5 + 1))
' > "$src"
c=
trap '[ -z "$c" ] || kill -TERM "$c" 2>/dev/null; wait; exit 0' TERM
end=$((SECONDS + 120))
while [ $SECONDS -lt $end ]; do
    "$cc1" -quiet -O2 "$src" -o /dev/null &
    c=$!
    wait "$c"
    c=
done
LOOP
}

# tid_named PID NAME: the tid of PID's thread named NAME (while it runs).
tid_named() {
    local t
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && { basename "$t"; return 0; }
    done
    say "process $1 has no thread named $2"
    exit 1
}

# truth KEY VALUE: a line KEY=VALUE of OUTDIR/truth, what argus must find
# in hang.txt (tests/live/README.md, "The real corpus"): proc=NAME (the
# --proc to give), hangs=N (how many hangs argus must find with no flag),
# hang=TID PROC/THREAD, culprit=TID PROC/THREAD (one line
# per culprit a developer would accept as first), ending=WORD (how the
# wait chain ends), why=TEXT.
truth() {
    local load=
    [ -z "${LOAD_CPU:-}" ] || load="stress-ng --cpu $LOAD_CPU"
    [ -z "${LOAD_COMPILE:-}" ] || load="${load:+$load and }$LOAD_COMPILE compiler loops (cc1 -O2)"
    if [ "$1" = why ] && [ -n "$load" ]; then
        echo "$1=$2 (on a machine loaded by $load)" >> "$OUT/truth"
    else
        echo "$1=$2" >> "$OUT/truth"
    fi
}
: > "$OUT/truth"

# start_redis [WRAPPER...]: a redis-server of its own (no persistence,
# DEBUG commands from local connections) on a free 127.0.0.1 port, run
# under WRAPPER when given (taskset ...: it execs the server, the pid
# stays); $REDIS_PORT and $REDIS_PID are set once it answers.
start_redis() {
    REDIS_PORT=$(free_port)
    spawn "$@" redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
        --dir "$WORK" --daemonize no --loglevel warning --enable-debug-command local \
        --logfile "$WORK/redis.log"
    REDIS_PID=$SPAWNED_PID
    wait_for 10 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping
}

# start_display: an Xvfb of its own on a free display; DISPLAY exported.
start_display() {
    spawn Xvfb -displayfd 5 -nolisten tcp -screen 0 640x480x24 5>"$WORK/display" 2>"$WORK/xvfb.log"
    wait_for 10 test -s "$WORK/display"
    DISPLAY=:$(cat "$WORK/display")
    export DISPLAY
}

# key_press_driver: writes $WORK/press, the recorded action of a GUI
# scenario: `press KEY` presses KEY (XTEST, into the focused window), then
# waits (10 s at most) for the app to write KEY to the fifo $FIFO, which
# it makes.
key_press_driver() {
    cat > "$WORK/press" <<'PRESS'
#!/bin/bash
exec 3<>"$FIFO"
xdotool key "$1"
read -r -t 10 -u 3 line && [ "$line" = "$1" ]
PRESS
    chmod +x "$WORK/press"
    export FIFO=$WORK/done
    mkfifo "$FIFO"
}

# start_gui_app TITLE CMD...: starts a GUI app (spawn; its pid in
# $APP_PID), waits for its window named TITLE, focuses it, and presses a
# first key with $WORK/press (key_press_driver) before anything is
# recorded: the toolkit takes the focus and loads its keymap then.
# GUI_SEARCH=--classname finds the window by its WM_CLASS name instead
# (SDL 2 leaves WM_NAME empty: it sets only _NET_WM_NAME).
start_gui_app() {
    local title=$1 wid by=${GUI_SEARCH:---name}
    shift
    spawn "$@"
    APP_PID=$SPAWNED_PID
    wait_for 10 xdotool search "$by" "^$title\$"
    wid=$(xdotool search "$by" "^$title\$" | head -1)
    timeout 10 xdotool windowfocus --sync "$wid"
    timeout 15 "$WORK/press" n || { say "the app did not handle a key"; exit 1; }
    sleep 0.5
}

# gtk_window TITLE: the Python lines that show a GTK 3 window named TITLE,
# its key presses handled by the app's on_key, and run GTK's main loop
# (after the app's imports and on_key, in its app.py)
gtk_window() {
    cat <<EOF
window = Gtk.Window(title="$1")
label = Gtk.Label(label="press a key")
window.add(label)
window.set_default_size(200, 100)
window.connect("key-press-event", on_key)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
EOF
}

# tk_window TITLE: the Python lines that show a Tk window named TITLE,
# its key presses handled by the app's on_key, and run Tk's main loop
# (after the app's imports and on_key, in its app.py)
tk_window() {
    cat <<EOF
root = tkinter.Tk()
root.title("$1")
root.geometry("200x100")
label = tkinter.Label(root, text="press a key")
label.pack()
root.bind("<Key>", on_key)
root.mainloop()
EOF
}

# dialog_driver TITLE: writes $WORK/ask, the recorded action of the modal
# dialog scenarios: `ask KEY SECONDS` focuses the app's window TITLE (with
# no window manager the focus is nowhere once a dialog went), presses KEY,
# waits for the dialog's window, argus-dialog (10 s at most), focuses it
# (as a window manager would), leaves it up SECONDS and answers Return
# (XTEST), then waits (10 s at most) for the app to write KEY to $FIFO
# (key_press_driver makes it).
dialog_driver() {
    cat > "$WORK/ask" <<ASK
#!/bin/bash
exec 3<>"\$FIFO"
timeout 10 xdotool windowfocus --sync "\$(xdotool search --name '^$1\$' | head -1)"
xdotool key "\$1"
wid=\$(timeout 10 xdotool search --sync --name '^argus-dialog\$' | head -1)
[ -n "\$wid" ] || exit 1
timeout 10 xdotool windowfocus --sync "\$wid"
sleep "\$2"
xdotool key Return
read -r -t 10 -u 3 line && [ "\$line" = "\$1" ]
ASK
    chmod +x "$WORK/ask"
}

# record_dialog_runs PROC WHY: the modal dialog scenarios' two runs
# (dialog_driver's ask: key d, normal; key h, the hang) of the app
# $APP_PID, whose main thread is PROC, and their truth: the app's hang, its
# child (wait_for_child) the culprit
record_dialog_runs() {
    record normal "$WORK/ask" d 3
    sleep 0.5
    record hang "$WORK/ask" h 3
    truth hang "$APP_PID $1/main"
    truth culprit "$(cat "$WORK/child.pid") sleep/main"
    truth ending timeout
    truth why "$2"
}

# record_normal_and_hang: the normal run (key n, handled at once), then the
# hang (key h), with the app started by start_gui_app. With WATCH_MODE=1,
# argus-watch watches both instead (watch_normal_and_hang).
record_normal_and_hang() {
    if [ -n "${WATCH_MODE:-}" ]; then
        watch_normal_and_hang
        return
    fi
    record normal "$WORK/press" n
    sleep 0.5
    record hang "$WORK/press" h
}

# watch_normal_and_hang: argus-watch (WATCH_OPTS adds options) is started,
# then key n (the normal run), then 3 s later key h (the hang); it must
# write its line for the hang within 60 s; 3 s more to see that nothing
# else comes, then it is stopped with SIGINT. Its folders go to
# OUTDIR/watch, its lines to OUTDIR/watch.lines, its messages to
# OUTDIR/watch.err; the instances and uprobes before and after to
# OUTDIR/tracefs.{before,after}.
watch_normal_and_hang() {
    exec 9>"${TMPDIR:-/tmp}/argus-live.lock"
    flock -w 1200 9 || { say "another recording held the lock for 20 minutes"; exit 1; }
    local tracefs=/sys/kernel/tracing
    { ls "$tracefs/instances"; cat "$tracefs/uprobe_events"; } > "$OUT/tracefs.before"
    start_load
    # shellcheck disable=SC2086  # WATCH_OPTS is a list of words
    spawn argus-watch --dir "$OUT/watch" --no-notify -v ${WATCH_OPTS:-} \
        > "$OUT/watch.lines" 2> "$OUT/watch.err"
    local watcher=$SPAWNED_PID
    wait_for 20 grep -q 'watching' "$OUT/watch.err"
    "$WORK/press" n
    sleep 3
    "$WORK/press" h
    wait_for 60 test -s "$OUT/watch.lines"
    sleep 3
    kill -INT "$watcher"
    wait_for 30 sh -c "! kill -0 $watcher 2>/dev/null"
    stop_load
    { ls "$tracefs/instances"; cat "$tracefs/uprobe_events"; } > "$OUT/tracefs.after"
    flock -u 9
    exec 9>&-
}

# desktop_env: a home, runtime and config directories of its own under
# $WORK, and no accessibility bus, dconf, gvfs or input method: only the
# scenario's programs talk.
desktop_env() {
    export XDG_RUNTIME_DIR=$WORK/run HOME=$WORK/home XDG_CACHE_HOME=$WORK/cache \
        XDG_CONFIG_HOME=$WORK/config XDG_DATA_HOME=$WORK/data
    mkdir -m 700 "$XDG_RUNTIME_DIR" "$HOME"
    export NO_AT_BRIDGE=1 GSETTINGS_BACKEND=memory GIO_USE_VFS=local \
        GTK_IM_MODULE=gtk-im-context-simple QT_ACCESSIBILITY=0 QT_QPA_PLATFORM=xcb
}

# start_slow_dbus_service: a session dbus-daemon of its own
# (DBUS_SESSION_BUS_ADDRESS exported) and on it a GDBus service
# (python3-gi, named slow-dbus-svc): org.argus.Slow.Delay(d seconds) sleeps
# on its main thread, then replies. Its pid in $SERVICE_PID once it answers.
start_slow_dbus_service() {
    cat > "$WORK/service.py" <<'EOF'
import ctypes, time
ctypes.CDLL(None).prctl(15, b"slow-dbus-svc", 0, 0, 0)  # PR_SET_NAME
from gi.repository import Gio, GLib
XML = """<node><interface name="org.argus.Slow">
  <method name="Delay"><arg type="d" name="seconds" direction="in"/></method>
</interface></node>"""
def on_call(conn, sender, path, iface, method, params, invocation):
    time.sleep(params.unpack()[0])
    invocation.return_value(None)
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
bus.register_object("/org/argus/Slow", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0],
                    on_call, None, None)
Gio.bus_own_name_on_connection(bus, "org.argus.Slow", Gio.BusNameOwnerFlags.NONE, None, None)
GLib.MainLoop().run()
EOF
    spawn dbus-daemon --session --address="unix:path=$WORK/bus" --nofork --print-address \
        > "$WORK/bus.address"
    wait_for 10 test -s "$WORK/bus.address"
    export DBUS_SESSION_BUS_ADDRESS=unix:path=$WORK/bus
    spawn /usr/bin/python3 "$WORK/service.py"
    SERVICE_PID=$SPAWNED_PID
    wait_for 10 dbus-send --session --print-reply --dest=org.argus.Slow /org/argus/Slow \
        org.argus.Slow.Delay double:0
}
