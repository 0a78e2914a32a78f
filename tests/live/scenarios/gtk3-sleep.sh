#!/bin/bash
# gtk3-sleep: a GTK 3 window (python3-gi) under Xvfb whose key-press
# handler calls time.sleep(3) on the main thread (key h; normal run: key
# n, time.sleep(0.01)). No other thread or process is involved: the app's
# main thread sleeps in clock_nanosleep and its own timer ends the wait.
# Truth: fixtures/real/gtk3-sleep/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_gtk3

# the app: key h sleeps 3 s, any other key 10 ms; then it writes the key's
# name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"gtk-sleep-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
def on_key(window, event):
    name = Gdk.keyval_name(event.keyval)
    time.sleep(3.0 if name == "h" else 0.01)
    label.set_text("handled " + name)
    os.write(done, (name + "\n").encode())
    return True
EOF
gtk_window argus-gtk3-sleep >> "$WORK/app.py"

key_press_driver
desktop_env
start_display
start_gui_app argus-gtk3-sleep $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app gtk-sleep-app/main"
truth culprit "$app gtk-sleep-app/main"
truth ending timeout
truth why "the app's key handler called time.sleep(3) on the main thread (clock_nanosleep, ended by its own timer), so GTK's main loop did not run"
