#!/bin/bash
# gui-busy: a Tk 8.6 window (python3-tk) under Xvfb whose key handler
# computes for 3 s on the main thread (key h; normal run: key n, 10 ms),
# so the window takes no events meanwhile. No other thread is involved:
# the main thread is both the one that hung and the cause.
# Truth: fixtures/real/gui-busy/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
need_python_tk

# the app: key h computes for 3 s, any other key for 10 ms; then it writes
# the key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"tk-busy-app", 0, 0, 0)  # PR_SET_NAME
import tkinter
done = os.open(sys.argv[1], os.O_RDWR)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
def on_key(event):
    compute(3.0 if event.keysym == "h" else 0.01)
    label.configure(text="handled " + event.keysym)
    os.write(done, (event.keysym + "\n").encode())
EOF
tk_window argus-gui-busy >> "$WORK/app.py"

key_press_driver
desktop_env

start_display
start_gui_app argus-gui-busy $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth hangs 1
truth hang "$app tk-busy-app/main"
truth culprit "$app tk-busy-app/main"
truth ending running
truth why "the app's key handler computed for 3 s on the main thread, so Tk's event loop did not run"
