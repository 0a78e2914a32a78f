#!/bin/bash
# gtk-script: a GTK 3 window (python3-gi) under Xvfb, run as
# `/usr/bin/python3 .../gtkapp.py` and NOT renamed (no prctl): its comm is
# the interpreter's, python3, and the user knows it as gtkapp.py. Its
# key-press handler starts a worker thread and waits on a threading.Event
# that the worker sets after computing for 2.5 s (key h; normal run: key
# n, the worker sets it at once). The main thread waits (a futex); the
# worker computes. `--proc gtkapp.py` names the app only through its
# command line (argus-record's `# argus-cmdline:`, decode's DEC-CMDLINE).
# Truth: fixtures/real/gtk-script/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_gtk3

# the app: key h makes the worker compute 2.5 s before it sets the event,
# any other key 0 s; then it writes the key's name to the fifo argv[1];
# each worker writes its tid to argv[2]. No thread is renamed.
cat > "$WORK/gtkapp.py" <<'EOF'
import os, sys, threading
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
done = os.open(sys.argv[1], os.O_RDWR)
def work(seconds, answered):
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % threading.get_native_id())
    compute(seconds)
    answered.set()
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    answered = threading.Event()
    threading.Thread(target=work, args=(2.5 if name == "h" else 0, answered)).start()
    answered.wait(10)
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
EOF
gtk_window argus-gtk-script >> "$WORK/gtkapp.py"

key_press_driver
desktop_env
start_display
start_gui_app argus-gtk-script $py "$WORK/gtkapp.py" "$FIFO" "$WORK/worker.tid"
app=$APP_PID
[ "$(cat "/proc/$app/comm")" = python3 ] || { say "the app's comm is not python3"; exit 1; }

record_normal_and_hang
worker=$(cat "$WORK/worker.tid")
truth proc gtkapp.py
truth hangs 1
truth hang "$app python3/main"
truth culprit "$worker python3/python3"
truth ending running
truth why "the app (python3 gtkapp.py, comm python3) had its key handler wait on a threading.Event that its worker thread ($worker) set only after computing for 2.5 s, so GTK's main loop did not run"
