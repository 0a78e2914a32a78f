#!/bin/bash
# gtk-timeout: a GTK 3 window (python3-gi) under Xvfb whose key-press
# handler does not compute itself: it arms a GLib timeout source of 100 ms
# (GLib.timeout_add) and returns at once; the main loop waits for the
# timer, then dispatches the callback, which computes for 3 s on the main
# thread (key h; normal run: key n, 10 ms). The hang is the timer
# callback's dispatch, 100 ms after the key (the loop was back at its wait
# meanwhile); it was started by the key press through the timeout source
# (gtk-idle: through an idle source, dispatched at once).
# Truth: fixtures/real/gtk-timeout/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_gtk3

# the app: key h arms a 100 ms timer whose callback computes 3 s, any
# other key one whose callback computes 10 ms; the callback then writes the
# key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"gtk-timeout-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, GLib, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
def later(name):
    compute(3.0 if name == "h" else 0.01)
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return False  # once
def on_key(window, event):
    GLib.timeout_add(100, later, Gdk.keyval_name(event.keyval))
    return True
EOF
gtk_window argus-gtk-timeout >> "$WORK/app.py"

key_press_driver
desktop_env
start_display
start_gui_app argus-gtk-timeout $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app gtk-timeout-app/main"
truth culprit "$app gtk-timeout-app/main"
truth ending running
truth why "the app's key handler armed a 100 ms GLib timeout (GLib.timeout_add) whose callback computed for 3 s on the main thread when the main loop dispatched it, so GTK's main loop did not run; the key press started it"
