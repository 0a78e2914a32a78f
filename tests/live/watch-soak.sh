#!/bin/bash
# tests/live/watch-soak.sh OUTDIR [ROUNDS [SECONDS]]: argus-watch left
# running beside whatever else runs on this machine (a test suite, a
# build), with a GTK 3 app made to hang now and then (docs/stages/watch.md,
# "Evidence"). Every SECONDS (default 600) a round presses, into the app:
#   n  a D-Bus call the service answers at once        (no hang)
#   h  a D-Bus call the service answers after 3 s       (a hang: the service)
#   b  the key handler computes 2.5 s                   (a hang: the app)
# ROUNDS rounds (default 6: an hour). Then argus-watch is stopped and its
# lines checked: exactly one per induced hang, each the app's, the D-Bus
# ones naming the service, the busy ones the app itself, nothing else.
# Its CPU time and largest resident size go to OUTDIR/cost. Exit 0 when
# all is right, 1 when not, 77 when it cannot run here (root, Xvfb,
# xdotool, dbus, python3-gi). Not part of make test or make live: an
# hour's run.
SOAK_OUT=${1:?usage: $0 OUTDIR [ROUNDS [SECONDS]]}
ROUNDS=${2:-6}
PERIOD=${3:-600}
set -- "$SOAK_OUT"
. "$(dirname "$0")/scenarios/lib.sh"
need_root
command -v argus-watch > /dev/null || skip "argus-watch is not on PATH"
need Xvfb:xvfb xdotool:xdotool dbus-daemon:dbus-daemon dbus-send:dbus-bin
py=/usr/bin/python3
$py -c 'import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk' 2>/dev/null ||
    skip "needs GTK 3 for python (apt-get install python3-gi gir1.2-gtk-3.0)"

cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys
ctypes.CDLL(None).prctl(15, b"soak-app", 0, 0, 0)  # PR_SET_NAME
sys.path.insert(0, os.path.dirname(sys.argv[0]))
from busy import compute
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gio, GLib, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    if name == "b":
        compute(2.5)
    else:
        bus.call_sync("org.argus.Slow", "/org/argus/Slow", "org.argus.Slow", "Delay",
                      GLib.Variant("(d)", (3.0 if name == "h" else 0.0,)), None,
                      Gio.DBusCallFlags.NONE, 10000, None)
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
EOF
gtk_window argus-soak >> "$WORK/app.py"
key_press_driver
desktop_env
start_display
start_slow_dbus_service
service=$SERVICE_PID
start_gui_app argus-soak $py "$WORK/app.py" "$FIFO"
app=$APP_PID

spawn argus-watch --dir "$OUT/watch" --no-notify -v > "$OUT/watch.lines" 2> "$OUT/watch.err"
watcher=$SPAWNED_PID
wait_for 20 grep -q watching "$OUT/watch.err"
say "watching (pid $watcher); $ROUNDS rounds, one every $PERIOD s"
for r in $(seq "$ROUNDS"); do
    start=$(date +%s)
    "$WORK/press" n
    sleep 5
    "$WORK/press" h
    sleep 5
    "$WORK/press" b
    say "round $r: pressed n, h, b"
    left=$((PERIOD - ($(date +%s) - start)))
    [ $left -le 0 ] || sleep $left
done
sleep 10
read -r utime stime < <(awk '{ print $14, $15 }' "/proc/$watcher/stat")
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$watcher/status")
tck=$(getconf CLK_TCK)
kill -INT "$watcher"
wait_for 30 sh -c "! kill -0 $watcher 2>/dev/null"
echo "cpu_seconds=$(echo "($utime + $stime) / $tck" | bc -l) max_rss_kb=$hwm rounds=$ROUNDS period=$PERIOD" > "$OUT/cost"
cat "$OUT/cost" >&2

status=0
n=$(wc -l < "$OUT/watch.lines")
[ "$n" = $((2 * ROUNDS)) ] || { say "$n lines, not $((2 * ROUNDS))"; status=1; }
dbus=$(grep -c "  soak-app \[$app\]  soak-app/main \[$app\] .*waiting over D-Bus on slow-dbus-svc/main \[$service\]" "$OUT/watch.lines" || true)
busy=$(grep -c "  soak-app \[$app\]  soak-app/main \[$app\] ran " "$OUT/watch.lines" || true)
[ "$dbus" = "$ROUNDS" ] || { say "$dbus D-Bus hangs named the service, not $ROUNDS"; status=1; }
[ "$busy" = "$ROUNDS" ] || { say "$busy busy hangs named the app, not $ROUNDS"; status=1; }
say "$n lines: $dbus D-Bus hangs, $busy busy ones; $(grep -c 'no report' "$OUT/watch.err" || true) unconfirmed notes" || true
exit $status
