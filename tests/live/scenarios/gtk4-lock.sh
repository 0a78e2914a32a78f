#!/bin/bash
# gtk4-lock: a GTK 4 window (python3-gi, Gtk 4.0, X11 backend) under Xvfb
# whose key-pressed handler starts a worker thread that takes a
# threading.Lock and computes with it held for 2.5 s; the handler waits
# until the worker holds the lock, then takes the lock itself, and blocks
# until the worker lets it go (key h; normal run: key n, 10 ms). The main
# thread waits on the lock (a futex); the worker computes.
# Truth: fixtures/real/gtk4-lock/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'import gi; gi.require_version("Gtk", "4.0"); from gi.repository import Gtk' 2>/dev/null ||
    skip "needs GTK 4 for python (apt-get install python3-gi gir1.2-gtk-4.0)"

# the app: key h makes the worker hold the lock 2.5 s, any other key 10 ms;
# then it writes the key's name to the fifo argv[1]; each worker writes
# its tid to argv[2]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None)
libc.prctl(15, b"gtk4-lock-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
from gi.repository import Gdk, GLib, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
lock = threading.Lock()
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
def work(seconds, holding):
    libc.prctl(15, b"lock-worker", 0, 0, 0)
    with open(sys.argv[2], "w") as f:
        f.write("%d\n" % threading.get_native_id())
    with lock:
        holding.set()
        compute(seconds)
def on_key(controller, keyval, keycode, state):
    name = Gdk.keyval_name(keyval)
    holding = threading.Event()
    threading.Thread(target=work, args=(2.5 if name == "h" else 0.01, holding)).start()
    holding.wait(10)
    with lock:
        label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
window = Gtk.Window(title="argus-gtk4-lock")
label = Gtk.Label(label="press a key")
window.set_child(label)
window.set_default_size(200, 100)
keys = Gtk.EventControllerKey()
keys.connect("key-pressed", on_key)
window.add_controller(keys)
loop = GLib.MainLoop()
window.connect("close-request", lambda w: loop.quit())
window.present()
loop.run()
EOF

key_press_driver
desktop_env
# X11 (Xvfb), and cairo rendering: no GL under Xvfb
export GDK_BACKEND=x11 GSK_RENDERER=cairo
start_display
start_gui_app argus-gtk4-lock $py "$WORK/app.py" "$FIFO" "$WORK/worker.tid"
app=$APP_PID

record normal "$WORK/press" n
sleep 0.5
record hang "$WORK/press" h
worker=$(cat "$WORK/worker.tid")
truth hangs 1
truth hang "$app gtk4-lock-app/main"
truth culprit "$worker gtk4-lock-app/lock-worker"
truth ending running
truth why "the key handler took a threading.Lock that its worker thread ($worker) held while it computed 2.5 s, so GTK 4's main loop did not run"
