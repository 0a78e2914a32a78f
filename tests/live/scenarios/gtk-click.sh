#!/bin/bash
# gtk-click: a GTK 3 window (python3-gi) under Xvfb with one button, clicked
# with the mouse (XTEST: xdotool mousemove and click 1); its "clicked"
# handler runs a child process and waits for it (subprocess.Popen, then wait, of
# `sleep 3` for the hang; `sleep 0.01` for the normal run). Mouse input,
# where the other GUI scenarios press keys; a GUI app waiting on its child.
# Truth: fixtures/real/gtk-click/truth.
. "$(dirname "$0")/lib.sh"
need_root
need Xvfb:xvfb xdotool:xdotool sleep:coreutils
need_python_gtk3

# the app: a click runs `sleep S` (S from the file argv[2]) and waits for
# it, writing the child's pid to argv[2].pid, then "click" to the fifo
# argv[1]; a key press (start_gui_app's first key) writes the key's name
cat > "$WORK/app.py" <<'EOF'
import ctypes, os, subprocess, sys
ctypes.CDLL(None).prctl(15, b"gtk-click-app", 0, 0, 0)  # PR_SET_NAME
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
done = os.open(sys.argv[1], os.O_RDWR)
def on_click(button):
    with open(sys.argv[2]) as f:
        seconds = f.read().strip()
    child = subprocess.Popen(["sleep", seconds])
    with open(sys.argv[2] + ".pid", "w") as f:
        f.write("%d\n" % child.pid)
    child.wait()
    button.set_label("clicked")
    os.write(done, b"click\n")
def on_key(window, event):
    os.write(done, (Gdk.keyval_name(event.keyval) + "\n").encode())
    return True
window = Gtk.Window(title="argus-gtk-click")
button = Gtk.Button(label="click me")
button.connect("clicked", on_click)
window.add(button)
window.set_default_size(200, 100)
window.connect("key-press-event", on_key)
window.connect("destroy", Gtk.main_quit)
window.show_all()
Gtk.main()
EOF

key_press_driver
# click S: the recorded action: the click's sleep is S seconds; moves the
# pointer over the button, clicks (XTEST), waits (10 s at most) for the app
cat > "$WORK/click" <<CLICK
#!/bin/bash
echo "\$1" > "$WORK/seconds"
exec 3<>"\$FIFO"
xdotool mousemove --window "\$(xdotool search --name '^argus-gtk-click\$' | head -1)" 100 50 click 1
read -r -t 10 -u 3 line && [ "\$line" = click ]
CLICK
chmod +x "$WORK/click"
desktop_env
start_display
echo 0 > "$WORK/seconds"
start_gui_app argus-gtk-click $py "$WORK/app.py" "$FIFO" "$WORK/seconds"
app=$APP_PID
timeout 15 "$WORK/click" 0 || { say "the app did not take a click"; exit 1; }
sleep 0.5

record normal "$WORK/click" 0.01
sleep 0.5
record hang "$WORK/click" 3
child=$(cat "$WORK/seconds.pid")

truth hangs 1
truth hang "$app gtk-click-app/main"
truth culprit "$child sleep/main"
truth ending timeout
truth why "the button's clicked handler ran \`sleep 3\` as a child process and waited for it (subprocess.Popen, then wait), so GTK's main loop did not run"
