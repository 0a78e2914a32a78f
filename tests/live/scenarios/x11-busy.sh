#!/bin/bash
# x11-busy: a plain X11 window with no toolkit (python3-xlib: the X
# protocol spoken by the client itself, no Xlib, GLib or toolkit loop)
# under Xvfb whose KeyPress handler computes for 3 s on the main thread
# (key h; normal run: key n, 10 ms), so its event loop reads no events
# meanwhile. argus-record has no probe for it: kernel events only (--proc).
# Truth: fixtures/real/x11-busy/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool
py=/usr/bin/python3
[ -x $py ] || skip "needs $py (apt-get install python3)"
$py -c 'import Xlib.display' 2>/dev/null || skip "needs python3-xlib (apt-get install python3-xlib)"

# the app: key h computes 3 s, any other key 10 ms; then it writes the
# key's name to the fifo argv[1]
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"x11-busy-app", 0, 0, 0)  # PR_SET_NAME
from Xlib import X, XK, display
done = os.open(sys.argv[1], os.O_RDWR)
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from busy import compute  # lib.sh's $WORK/busy.py: computes for SECONDS
d = display.Display()
screen = d.screen()
window = screen.root.create_window(0, 0, 200, 100, 0, screen.root_depth,
                                   background_pixel=screen.white_pixel,
                                   event_mask=X.KeyPressMask | X.ExposureMask)
window.set_wm_name("argus-x11-busy")
window.map()
d.flush()
while True:
    event = d.next_event()
    if event.type == X.KeyPress:
        name = XK.keysym_to_string(d.keycode_to_keysym(event.detail, 0)) or "?"
        compute(3.0 if name == "h" else 0.01)
        os.write(done, (name + "\n").encode())
EOF

key_press_driver
desktop_env
start_display
start_gui_app argus-x11-busy $py "$WORK/app.py" "$FIFO"
app=$APP_PID

record_normal_and_hang
truth proc x11-busy-app
truth hang "$app x11-busy-app/main"
truth culprit "$app x11-busy-app/main"
truth ending running
truth why "the app's KeyPress handler computed for 3 s on the main thread, so its X event loop read no events"
