#!/bin/bash
# gtk-idle: a GTK 3 window (python3-gi) under Xvfb whose key-press handler
# does not compute itself: it queues a GLib idle source
# (GLib.idle_add) and returns at once; the idle callback, dispatched by the
# same main loop right after, computes for 3 s on the main thread (key h;
# normal run: key n, 10 ms). The hang is the idle callback's dispatch; it
# was started by the key press through the idle source.
# Truth: fixtures/real/gtk-idle/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_gtk3

# the app: key h queues an idle callback that computes 3 s, any other key
# one that computes 10 ms; the callback then writes the key's name to the
# fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"gtk-idle-app", 0, 0, 0)  # PR_SET_NAME
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
    GLib.idle_add(later, Gdk.keyval_name(event.keyval))
    return True
EOF
gtk_window argus-gtk-idle >> "$WORK/app.py"

key_press_driver
desktop_env
start_display
start_gui_app argus-gtk-idle $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app gtk-idle-app/main"
truth culprit "$app gtk-idle-app/main"
truth ending running
truth why "the app's key handler queued a GLib idle callback (GLib.idle_add) that computed for 3 s on the main thread when the main loop dispatched it, so GTK's main loop did not run; the key press started it"
